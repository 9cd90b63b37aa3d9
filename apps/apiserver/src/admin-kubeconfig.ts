import fs from 'node:fs/promises';
import { stringify } from 'yaml';
import type { PemKeyPair } from '@plat/x509';

const b64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');

/**
 * The admin client configuration in kubeconfig format (`apiVersion: v1`, `kind: Config`) with the
 * CA, client certificate and key embedded, so the file works from any folder with clientctl and
 * kubectl alike.
 */
export function adminKubeconfig(opts: { server: string; ca: PemKeyPair; admin: PemKeyPair; name?: string }): string {
  const name = opts.name ?? 'plat';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.ca.certPem) } }],
    users: [
      {
        name: 'plat-admin',
        user: { 'client-certificate-data': b64(opts.admin.certPem), 'client-key-data': b64(opts.admin.keyPem) },
      },
    ],
    contexts: [{ name: `plat-admin@${name}`, context: { cluster: name, user: 'plat-admin' } }],
    'current-context': `plat-admin@${name}`,
    preferences: {},
  });
}

/** Writes the file with mode 0600 (it holds a private key), atomically. */
export async function writeAdminKubeconfig(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, content, { mode: 0o600 });
  await fs.rename(tmp, file);
}

/** The address clients use: a wildcard bind address becomes loopback; IPv6 gets brackets. */
export function clientURL(bindAddress: string, port: number): string {
  let host = bindAddress;
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return host.includes(':') ? `https://[${host}]:${port}` : `https://${host}:${port}`;
}
