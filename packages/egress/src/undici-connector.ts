import { Agent, buildConnector } from 'undici';
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer.js';

/**
 * An undici `connect` function that opens every connection through a dialer: the tunnel is dialed
 * to the target's host and port, and for https targets the real TLS handshake with the target
 * runs through it (with the caller's TLS options: CA, client certificate, server name).
 */
export function createEgressConnector(
  dialer: Dialer,
  tlsOptions: buildConnector.BuildOptions = {},
  dialTimeoutMs = 10_000,
): buildConnector.connector {
  const tlsUpgrade = buildConnector(tlsOptions);
  return (options, callback) => {
    const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80));
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    dialer.dial(host, port, { timeoutMs: dialTimeoutMs }).then(
      (tunnel: Duplex) => {
        if (options.protocol !== 'https:') {
          callback(null, tunnel as unknown as import('node:net').Socket);
          return;
        }
        tlsUpgrade({ ...options, httpSocket: tunnel as unknown as import('node:net').Socket }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}

/** An undici Agent whose connections all go through the dialer. */
export function createEgressAgent(dialer: Dialer, tlsOptions: buildConnector.BuildOptions = {}): Agent {
  return new Agent({ connect: createEgressConnector(dialer, tlsOptions) });
}
