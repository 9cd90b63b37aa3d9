import fs from 'node:fs/promises';
import path from 'node:path';
import type { EgressSelectorSpec } from './egress-config.js';
import type { ProxyTlsMaterial } from './http-connect-dialer.js';

/**
 * Reads the caBundle / clientCert / clientKey files named by https:// transports, relative paths
 * against `cwd` as the server resolves them. Called by the app at the edge, once per (re)load.
 */
export async function readEgressTlsMaterial(
  spec: EgressSelectorSpec,
  cwd: string,
): Promise<Record<string, ProxyTlsMaterial>> {
  const out: Record<string, ProxyTlsMaterial> = {};
  for (const selection of spec.egressSelections) {
    const tcp = selection.connection.transport?.tcp;
    if (!tcp?.tlsConfig || !tcp.url.startsWith('https://')) continue;
    const { caBundle, clientCert, clientKey, tlsServerName } = tcp.tlsConfig;
    const read = (file: string | undefined) => (file ? fs.readFile(path.resolve(cwd, file)) : undefined);
    out[selection.name] = {
      ca: await read(caBundle),
      cert: await read(clientCert),
      key: await read(clientKey),
      servername: tlsServerName || undefined,
    };
  }
  return out;
}
