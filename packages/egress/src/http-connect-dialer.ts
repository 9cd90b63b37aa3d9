import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { connectSocket, withDialDeadline, type DialOptions, type Dialer } from './dialer.js';
import { EgressDialError } from './egress-error.js';

/** TLS material for the connection to the proxy itself (file contents, not paths). */
export interface ProxyTlsMaterial {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  servername?: string;
}

export type ProxyAddress =
  | { kind: 'tcp'; url: URL; tls?: ProxyTlsMaterial }
  | { kind: 'uds'; path: string };

const maxResponseHeaderBytes = 16 * 1024;

/**
 * HTTP CONNECT through a tunnel server (Kubernetes' HTTPConnect proxyProtocol): connects to the
 * proxy over TCP (http://, or https:// with mutual TLS) or a unix socket, sends
 * `CONNECT host:port`, requires a 2xx answer and hands back the raw tunnel.
 */
export class HttpConnectDialer implements Dialer {
  readonly via: string;

  constructor(
    readonly selection: string,
    private readonly proxy: ProxyAddress,
  ) {
    this.via = proxy.kind === 'tcp' ? `${proxy.url.protocol}//${proxy.url.host}` : `unix://${proxy.path}`;
  }

  dial(host: string, port: number, opts?: DialOptions): Promise<Duplex> {
    return withDialDeadline(opts, async (signal) => {
      let socket: net.Socket | tls.TLSSocket;
      try {
        socket = await this.connectProxy(signal);
      } catch (err) {
        throw new EgressDialError(this.selection, this.via, `connecting to the proxy: ${(err as Error).message}`, {
          cause: err,
        });
      }
      try {
        await sendConnect(socket, host, port, signal);
      } catch (err) {
        socket.destroy();
        throw err instanceof ConnectRefused
          ? new EgressDialError(this.selection, this.via, err.message)
          : new EgressDialError(this.selection, this.via, `CONNECT ${host}:${port}: ${(err as Error).message}`, {
              cause: err,
            });
      }
      return socket;
    });
  }

  private async connectProxy(signal: AbortSignal): Promise<net.Socket | tls.TLSSocket> {
    if (this.proxy.kind === 'uds') return connectSocket({ path: this.proxy.path }, signal);
    const { url } = this.proxy;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (url.protocol === 'http:') return connectSocket({ host, port }, signal);
    const material = this.proxy.tls ?? {};
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host,
        port,
        ca: material.ca,
        cert: material.cert,
        key: material.key,
        servername: material.servername ?? (net.isIP(host) ? undefined : host),
        ALPNProtocols: ['http/1.1'],
      });
      const onAbort = () => {
        socket.destroy();
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('secureConnect', () => {
        signal.removeEventListener('abort', onAbort);
        resolve(socket);
      });
      socket.once('error', (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      });
    });
  }
}

class ConnectRefused extends Error {}

function sendConnect(socket: net.Socket, host: string, port: number, signal: AbortSignal): Promise<void> {
  const authority = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = () => {
      socket.removeListener('readable', onReadable);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      cleanup();
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the proxy closed the connection before answering'));
    };
    // Paused-mode reads, so no tunnel byte is consumed by us once the header has ended.
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffered.length > maxResponseHeaderBytes) {
            cleanup();
            reject(new Error('the proxy answer has no end of headers'));
            return;
          }
          continue;
        }
        cleanup();
        const rest = buffered.subarray(end + 4);
        if (rest.length) socket.unshift(rest);
        const statusLine = buffered.subarray(0, buffered.indexOf('\r\n')).toString('latin1');
        const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
        if (!match) {
          reject(new Error(`malformed proxy answer ${JSON.stringify(statusLine)}`));
          return;
        }
        const status = Number(match[1]);
        if (status < 200 || status > 299) {
          reject(new ConnectRefused(`CONNECT returned ${status}`));
          return;
        }
        resolve();
        return;
      }
    };
    socket.on('readable', onReadable);
    socket.once('error', onError);
    socket.once('close', onClose);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nUser-Agent: plat-apiserver\r\n\r\n`);
  });
}
