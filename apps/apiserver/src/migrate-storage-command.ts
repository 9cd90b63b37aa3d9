/**
 * `apiserver migrate-storage`: flags in (the server's storage flags), one call to
 * @plat/control-plane's migrateStorage over the served resources, a line per resource out. What is
 * rewritten, and how safely, is the control plane's rule (storage-migration.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { commandStore } from './storage-flags.js';
import { migrateStorage, servedResourceDefinitions, type ResourceMigration } from '@plat/control-plane';
import { defaultSqliteFileName, openStorage, type BackendOptions } from '@plat/storage';

interface MigrateIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /** Aborted on SIGINT/SIGTERM by main; tests abort it themselves. */
  signal?: AbortSignal;
}

function backendFrom(argv: Record<string, unknown>): BackendOptions | string {
  const store = commandStore(argv, 'a storage migration');
  // The migration compacts nothing itself: a compaction meanwhile would restart its listing.
  return typeof store === 'string' ? store : { ...store, compactIntervalMs: 0 };
}

async function run(argv: Record<string, unknown>, io: MigrateIO): Promise<number> {
  const backend = backendFrom(argv);
  if (typeof backend === 'string') return fail(io, backend);
  // Opening a SQLite store creates it: a mistyped --data-dir would otherwise "migrate" an empty one.
  if (backend.backend === 'sqlite' && !existsSync(path.join(backend.dataDir, defaultSqliteFileName))) {
    return fail(io, `no SQLite storage in ${backend.dataDir} (${defaultSqliteFileName} is missing): pass the server's --data-dir`);
  }
  let storage;
  try {
    storage = await openStorage(backend);
  } catch (err) {
    return fail(io, `cannot open storage (--storage-backend=${backend.backend}): ${(err as Error).message}`);
  }
  const line = (r: ResourceMigration) => `${r.resource}: scanned ${r.scanned}, rewritten ${r.rewritten}${r.complete ? '' : ' (stopped)'}\n`;
  let reports: ResourceMigration[] = [];
  try {
    reports = await migrateStorage(storage, servedResourceDefinitions(), { signal: io.signal, onResource: (r) => io.stdout.write(line(r)) });
  } catch (err) {
    if (io.signal?.aborted) return fail(io, 'interrupted: the objects rewritten so far stay rewritten; run migrate-storage again to finish');
    return fail(io, (err as Error).message);
  } finally {
    await storage.close();
  }
  const scanned = reports.reduce((n, r) => n + r.scanned, 0);
  const rewritten = reports.reduce((n, r) => n + r.rewritten, 0);
  io.stdout.write(
    rewritten === 0
      ? `Nothing to rewrite: all ${scanned} objects are stored in the storage version of their resource\n`
      : `Rewrote ${rewritten} of ${scanned} objects in the storage version of their resource\n`,
  );
  return 0;
}

function fail(io: MigrateIO, message: string): number {
  io.stderr.write(`Error: ${message}\n`);
  return 1;
}

function flags<T>(y: Argv<T>): Argv<T> {
  return y
    .option('storage-backend', { type: 'string', default: 'sqlite', describe: "The server's storage backend: 'sqlite' (in --data-dir) or 'etcd3'." })
    .option('data-dir', { type: 'string', default: '.plat', describe: "The server's data dir (sqlite); the server must be stopped (its storage.lock is taken)." })
    .option('etcd-servers', { type: 'string', describe: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' })
    .option('etcd-cafile', { type: 'string', describe: 'SSL Certificate Authority file used to secure etcd communication.' })
    .option('etcd-certfile', { type: 'string', describe: 'SSL certification file used to secure etcd communication.' })
    .option('etcd-keyfile', { type: 'string', describe: 'SSL key file used to secure etcd communication.' })
    .option('etcd-prefix', { type: 'string', default: '/registry', describe: 'The prefix to prepend to all resource paths in etcd.' })
    .strict();
}

/** `cli.command(migrateStorageCommand())` in main.ts. The handler sets process.exitCode. */
export function migrateStorageCommand(io: MigrateIO = { stdout: process.stdout, stderr: process.stderr }): CommandModule {
  return {
    command: 'migrate-storage',
    describe: 'Rewrite every stored object in the storage version of its resource (after an upgrade; idempotent, safe to interrupt)',
    builder: (y) => flags(y),
    handler: async (argv) => {
      // Ctrl-C stops after the object being rewritten, which is written whole or not at all.
      const stop = new AbortController();
      const onSignal = () => stop.abort(new Error('interrupted by a signal'));
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        process.exitCode = await run(argv as Record<string, unknown>, { ...io, signal: io.signal ?? stop.signal });
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      }
    },
  };
}
