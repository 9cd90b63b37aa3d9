/**
 * `apiserver snapshot save FILE` and `apiserver snapshot restore FILE --data-dir DIR`: flags in,
 * one call to @plat/storage's saveSnapshot / restoreSnapshot, a line out. What a snapshot holds,
 * how it is checked and why a restore bumps the revision are the storage package's rules.
 */
import type { Argv, CommandModule } from 'yargs';
import { lastFlag } from './flag-values.js';
import { commandStore } from './storage-flags.js';
import { defaultRestoreRevisionBump, restoreSnapshot, saveSnapshot, type SnapshotSource } from '@plat/storage';

interface SnapshotIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

async function runSave(argv: Record<string, unknown>, io: SnapshotIO): Promise<number> {
  const file = String(argv.file);
  const source: SnapshotSource | string = commandStore(argv, 'a snapshot');
  if (typeof source === 'string') return fail(io, source);
  try {
    const info = await saveSnapshot(source, file);
    const keys = info.keys === undefined ? '' : `, ${info.keys} objects`;
    io.stdout.write(`Snapshot saved at ${file} (${info.format}, revision ${info.revision}${keys}, ${info.size} bytes)\n`);
    return 0;
  } catch (err) {
    return fail(io, (err as Error).message);
  }
}

async function runRestore(argv: Record<string, unknown>, io: SnapshotIO): Promise<number> {
  const file = String(argv.file);
  const dataDir = lastFlag(argv['data-dir']);
  if (!dataDir) return fail(io, '--data-dir must be specified: the data dir to restore into');
  const bump = Number(lastFlag(argv['bump-revision']) ?? defaultRestoreRevisionBump);
  if (!Number.isSafeInteger(bump) || bump < 0) return fail(io, `--bump-revision must be a non-negative integer, got "${lastFlag(argv['bump-revision'])}"`);
  try {
    const r = await restoreSnapshot(file, { dataDir, force: argv.force === true, bumpRevision: bump });
    io.stdout.write(
      `Restored ${file} (revision ${r.revision}, ${r.keys ?? 0} objects) into ${dataDir}: resourceVersions continue from ${r.restoredRevision}; ` +
        `watches and reads at older resourceVersions answer 410 Gone and clients relist\n`,
    );
    return 0;
  } catch (err) {
    return fail(io, (err as Error).message);
  }
}

function fail(io: SnapshotIO, message: string): number {
  io.stderr.write(`Error: ${message}\n`);
  return 1;
}

function saveFlags<T>(y: Argv<T>): Argv<T> {
  return y
    .positional('file', { type: 'string', describe: 'Where to write the snapshot (through FILE.partial, renamed when complete and checked).' })
    .option('storage-backend', { type: 'string', default: 'sqlite', describe: "The server's storage backend: 'sqlite' (reads --data-dir) or 'etcd3' (an etcd member's snapshot)." })
    .option('data-dir', { type: 'string', default: '.plat', describe: "The server's data dir (sqlite); the server may keep running." })
    .option('etcd-servers', { type: 'string', describe: 'etcd client URL to take the snapshot from (one member).' })
    .option('etcd-cafile', { type: 'string', describe: 'SSL Certificate Authority file used to secure etcd communication.' })
    .option('etcd-certfile', { type: 'string', describe: 'SSL certification file used to secure etcd communication.' })
    .option('etcd-keyfile', { type: 'string', describe: 'SSL key file used to secure etcd communication.' })
    .strict();
}

function restoreFlags<T>(y: Argv<T>): Argv<T> {
  return y
    .positional('file', { type: 'string', describe: 'A snapshot written by `apiserver snapshot save` (sqlite).' })
    .option('data-dir', { type: 'string', describe: 'The data dir to restore into (the server must be stopped).' })
    .option('force', { type: 'boolean', default: false, describe: 'Restore into a data dir that is not empty, replacing its storage (pki/ and admin.conf stay).' })
    .option('bump-revision', {
      type: 'string',
      default: String(defaultRestoreRevisionBump),
      describe: 'How far past the snapshot revision (or the replaced storage revision, if higher) resourceVersions continue, as etcdutl --bump-revision.',
    })
    .strict();
}

/** `cli.command(snapshotCommand())` in main.ts. Handlers set process.exitCode. */
export function snapshotCommand(io: SnapshotIO = { stdout: process.stdout, stderr: process.stderr }): CommandModule {
  return {
    command: 'snapshot <command>',
    describe: 'Save a snapshot of the storage while the server runs, or restore one into a data dir',
    builder: (y) =>
      y
        .command({
          command: 'save <file>',
          describe: 'Write a consistent snapshot of the storage to FILE (the server keeps serving)',
          builder: (s) => saveFlags(s),
          handler: async (argv) => {
            process.exitCode = await runSave(argv as Record<string, unknown>, io);
          },
        })
        .command({
          command: 'restore <file>',
          describe: 'Restore a snapshot into --data-dir (stop the server first)',
          builder: (s) => restoreFlags(s),
          handler: async (argv) => {
            process.exitCode = await runRestore(argv as Record<string, unknown>, io);
          },
        })
        .demandCommand(1, 'name a snapshot command: save or restore'),
    handler: () => undefined,
  };
}
