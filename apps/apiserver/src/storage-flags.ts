import { flagList, lastFlag } from './flag-values.js';

/** The store a command works on from outside the server, named by the server's own storage flags. */
export type CommandStore =
  | { backend: 'sqlite'; dataDir: string }
  | { backend: 'etcd3'; servers: string[]; caFile?: string; certFile?: string; keyFile?: string; prefix: string };

/**
 * `--storage-backend` sqlite (`--data-dir`, default `.plat`) or etcd3 (`--etcd-servers`,
 * `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`, `--etcd-prefix`, default `/registry`), as
 * the server reads them; otherwise the message for the flag `purpose` (e.g. "a snapshot") cannot use.
 */
export function commandStore(argv: Record<string, unknown>, purpose: string): CommandStore | string {
  const backend = lastFlag(argv['storage-backend']) ?? 'sqlite';
  if (backend === 'sqlite') return { backend, dataDir: lastFlag(argv['data-dir']) ?? '.plat' };
  if (backend === 'etcd3') {
    const servers = flagList(argv['etcd-servers']);
    if (!servers.length) return '--etcd-servers must be specified';
    return {
      backend,
      servers,
      caFile: lastFlag(argv['etcd-cafile']),
      certFile: lastFlag(argv['etcd-certfile']),
      keyFile: lastFlag(argv['etcd-keyfile']),
      prefix: lastFlag(argv['etcd-prefix']) ?? '/registry',
    };
  }
  return `--storage-backend invalid for ${purpose}, allowed values: 'sqlite', 'etcd3'; got "${backend}"`;
}
