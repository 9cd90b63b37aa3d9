import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, copyFileSync, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { lockDataDir } from './data-dir-lock.js';
import { Etcd3Kv, type Etcd3KvOptions } from './etcd3-kv.js';
import { loadSqlite } from './load-sqlite.js';
import { defaultSqliteFileName } from './sqlite-kv.js';

/**
 * Backups of a data dir (SQLite) or an etcd member, and restoring a SQLite backup into a data dir
 * so that resourceVersions never go back for clients: the restored store's revision is moved past
 * anything the lost store can have handed out and marked compacted, so a watch or an Exact read
 * from any older revision answers 410 and the client relists. This is what etcd's
 * `etcdutl snapshot restore --bump-revision N --mark-compacted` does for kube-apiserver
 * (etcd-io/etcd etcdutl/etcdutl/snapshot_command.go, flags `bump-revision` and `mark-compacted`;
 * Kubernetes' "Operating etcd clusters" restore guide uses 1000000000).
 */

/** How far a restore moves the revision past the snapshot's (etcd's `--bump-revision`, as Kubernetes' guide sets it). */
export const defaultRestoreRevisionBump = 1_000_000_000;

export type SnapshotErrorCode = 'Invalid' | 'NotFound' | 'NotEmpty' | 'InUse' | 'Unsupported';

/** Why a snapshot could not be saved, verified or restored; `code` says which kind of failure. */
export class SnapshotError extends Error {
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

export interface SnapshotInfo {
  /** `sqlite`: a copy of `storage.db`; `etcd3`: an etcd backend snapshot with its SHA-256 appended. */
  format: 'sqlite' | 'etcd3';
  /** The store's revision at the snapshot (every write acknowledged at or below it is in it). */
  revision: number;
  /** Live keys (SQLite only). */
  keys?: number;
  /** Bytes of the file. */
  size: number;
}

export type SnapshotSource = { backend: 'sqlite'; dataDir: string } | ({ backend: 'etcd3' } & Pick<Etcd3KvOptions, 'servers' | 'caFile' | 'certFile' | 'keyFile' | 'dial'>);

/**
 * Writes a consistent snapshot of a store to `file` (through a temporary file beside it, fsynced,
 * verified, then renamed), while the server keeps serving: SQLite's `VACUUM INTO` from a
 * connection of its own (one read transaction, so one revision), or etcd's maintenance Snapshot
 * stream (the whole member, every prefix).
 */
export async function saveSnapshot(source: SnapshotSource, file: string, opts: { signal?: AbortSignal } = {}): Promise<SnapshotInfo> {
  opts.signal?.throwIfAborted();
  // The rename at the end would put a regular file where a device (/dev/stdout), a named pipe or
  // a directory was: such a path is refused before anything is written.
  const existing = statSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) throw new SnapshotError('Invalid', `${file} exists and is not a regular file: a snapshot is saved to a file of its own`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  try {
    let etcdRevision = 0;
    if (source.backend === 'sqlite') copySqlite(source.dataDir, partial);
    else etcdRevision = await downloadEtcd(source, partial, opts.signal);
    fsyncFile(partial);
    const info = verifySnapshot(partial);
    renameSync(partial, file);
    fsyncFile(path.dirname(path.resolve(file)));
    return info.format === 'etcd3' ? { ...info, revision: etcdRevision } : info;
  } finally {
    rmSync(partial, { force: true });
  }
}

function copySqlite(dataDir: string, to: string): void {
  const from = path.join(dataDir, defaultSqliteFileName);
  if (!existsSync(from)) throw new SnapshotError('NotFound', `no SQLite storage in ${dataDir} (${defaultSqliteFileName} is missing)`);
  const SqliteDatabase = loadSqlite();
  let db: Database.Database | undefined;
  try {
    db = new SqliteDatabase(from, { fileMustExist: true, timeout: 5000 });
    db.prepare('VACUUM INTO ?').run(to);
  } catch (err) {
    if (/^SQLITE_BUSY/.test((err as { code?: string }).code ?? '')) {
      throw new SnapshotError('InUse', `${from} is locked exclusively (a server of an older version holds it): stop that server, or upgrade it first`);
    }
    throw err;
  } finally {
    db?.close();
  }
  // A copy that is one file: no WAL beside it to lose when it is moved.
  const copy = new SqliteDatabase(to, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  // SQLite pages carry no checksum, so damage inside a value would pass integrity_check: the copy
  // gets the SHA-256 of its content appended, as etcd's snapshots do (SQLite ignores bytes past the
  // page count its header records).
  appendFileSync(to, sha256Of(to, statSync(to).size));
}

function sha256Of(file: string, length: number): Buffer {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let at = 0; at < length; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, length - at), at);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest();
}

/** Whether the file ends with the SHA-256 of what precedes it (etcd's snapshots, our SQLite snapshots); undefined when it has no room for one. */
function trailerMatches(file: string, size: number): { stored: Buffer; actual: Buffer } | undefined {
  if (size % 512 !== sha256Size || size <= sha256Size) return undefined;
  const stored = Buffer.alloc(sha256Size);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, stored, 0, sha256Size, size - sha256Size);
  } finally {
    closeSync(fd);
  }
  return { stored, actual: sha256Of(file, size - sha256Size) };
}

/** Streams etcd's snapshot to `to`; answers the revision of the stream's first header, the snapshot's point in time. */
async function downloadEtcd(source: Extract<SnapshotSource, { backend: 'etcd3' }>, to: string, signal?: AbortSignal): Promise<number> {
  const kv = new Etcd3Kv({ ...source, compactIntervalMs: 0 });
  try {
    // etcd 3.4 sends no header in the stream: the revision just before it is then the answer (a lower bound).
    const before = await kv.currentRevision();
    const client = await kv.client();
    const stream = (await client.maintenance.snapshot()) as Awaited<ReturnType<typeof client.maintenance.snapshot>> & { cancel(): void };
    const out = createWriteStream(to, { mode: 0o600 });
    let revision = 0;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        stream.cancel();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (chunk) => {
        if (!revision && chunk.header?.revision) revision = Number(chunk.header.revision);
        out.write(chunk.blob);
      });
      stream.on('error', (err) => reject(err));
      out.on('error', (err) => reject(err));
      stream.on('end', () => out.end(() => resolve()));
    }).finally(() => out.destroy());
    return revision || before;
  } finally {
    await kv.close();
  }
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1');
const sha256Size = 32;

/**
 * What a snapshot file holds, after checking it: an etcd snapshot by its appended SHA-256 (etcd's
 * own check: the file is a multiple of 512 bytes plus the hash; etcdutl/snapshot/v3_snapshot.go),
 * a SQLite copy by `PRAGMA integrity_check` and our schema. A truncated or corrupted file throws
 * SnapshotError `Invalid` saying what is wrong.
 */
export function verifySnapshot(file: string): SnapshotInfo {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) throw new SnapshotError('NotFound', `snapshot ${file} does not exist or is not a file`);
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.equals(sqliteMagic)) return verifySqlite(file, st.size);
  if (st.size % 512 === sha256Size && st.size > sha256Size) return verifyEtcd(file, st.size);
  throw new SnapshotError('Invalid', `snapshot ${file} is neither a SQLite storage snapshot nor an etcd snapshot with its SHA-256 (truncated or not a snapshot)`);
}

function verifyEtcd(file: string, size: number): SnapshotInfo {
  const { stored, actual } = trailerMatches(file, size)!;
  if (!actual.equals(stored)) {
    throw new SnapshotError('Invalid', `snapshot ${file}: the etcd snapshot's SHA-256 does not match its content (expected ${stored.toString('hex')}, got ${actual.toString('hex')}): the file is corrupt`);
  }
  // The revision is inside bbolt's pages (etcdutl snapshot status reads it); saving reports it.
  return { format: 'etcd3', revision: 0, size };
}

const expectedTables: Record<string, string[]> = {
  log: ['id', 'name', 'deleted', 'prev_revision', 'value'],
  meta: ['key', 'value'],
};

/** Checks a SQLite file: integrity, our tables and columns, the revision counter. */
function verifySqlite(file: string, size: number, db?: Database.Database): SnapshotInfo {
  const invalid = (why: string) => new SnapshotError('Invalid', `snapshot ${file} is not a valid SQLite storage snapshot: ${why}`);
  const own = !db;
  try {
    const trailer = trailerMatches(file, size);
    if (trailer && !trailer.actual.equals(trailer.stored)) throw invalid(`its SHA-256 does not match its content: the file is corrupt or truncated`);
    db ??= new (loadSqlite())(file, { readonly: true, fileMustExist: true });
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (problems.length !== 1 || problems[0] !== 'ok') throw invalid(`integrity_check: ${problems.slice(0, 5).join('; ')}`);
    for (const [table, columns] of Object.entries(expectedTables)) {
      const have = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
      if (!columns.every((c) => have.includes(c))) throw invalid(`table ${table} is missing or lacks columns (${columns.join(', ')})`);
    }
    const seq = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'log'`).get() as { seq: number } | undefined;
    if (!seq) throw invalid('it has no revision counter');
    // A copy without our trailer (an offline copy of storage.db) is checked value by value.
    if (!trailer) {
      const bad = db.prepare(`SELECT id FROM log WHERE deleted = 0 AND (value IS NULL OR NOT json_valid(value)) LIMIT 1`).get() as { id: number } | undefined;
      if (bad) throw invalid(`the object at revision ${bad.id} is not valid JSON`);
    }
    const keys = (
      db.prepare(`SELECT COUNT(*) AS n FROM log l WHERE l.deleted = 0 AND l.id = (SELECT MAX(n.id) FROM log n WHERE n.name = l.name)`).get() as { n: number }
    ).n;
    return { format: 'sqlite', revision: seq.seq, keys, size };
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    // SQLite's own words: "file is not a database", "database disk image is malformed".
    throw invalid((err as Error).message);
  } finally {
    if (own) db?.close();
  }
}

export interface RestoreSnapshotOptions {
  /** The data dir to restore into (created, mode 0700, when missing). */
  dataDir: string;
  /** Restore into a data dir that is not empty, replacing its storage (the PKI and admin.conf stay). */
  force?: boolean;
  /** How far past the snapshot's revision (or the replaced store's, if higher) the restored revision moves. */
  bumpRevision?: number;
  signal?: AbortSignal;
}

export interface RestoredSnapshot extends SnapshotInfo {
  /** The restored store's revision, also its compaction point: older resourceVersions answer 410. */
  restoredRevision: number;
}

/**
 * Restores a SQLite snapshot into a data dir: checks it, refuses a non-empty data dir without
 * `force` and a data dir a running server holds, then replaces `storage.db` through a checked
 * copy whose revision is bumped and marked compacted (see the top of this file). An etcd
 * snapshot is refused: etcd restores its own members (`etcdutl snapshot restore`).
 */
export async function restoreSnapshot(file: string, opts: RestoreSnapshotOptions): Promise<RestoredSnapshot> {
  opts.signal?.throwIfAborted();
  const info = verifySnapshot(file);
  if (info.format === 'etcd3') {
    throw new SnapshotError(
      'Unsupported',
      `snapshot ${file} is an etcd snapshot: restore it into the etcd member with \`etcdutl snapshot restore ${file} --data-dir <member dir> --bump-revision ${defaultRestoreRevisionBump} --mark-compacted\` (see docs/operations.md, "Back up and restore")`,
    );
  }
  const bump = opts.bumpRevision ?? defaultRestoreRevisionBump;
  if (!Number.isSafeInteger(bump) || bump < 0) throw new TypeError(`bumpRevision must be a non-negative integer, not ${bump}`);
  const { dataDir } = opts;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0 && !opts.force) {
    throw new SnapshotError('NotEmpty', `data dir ${dataDir} is not empty: restoring replaces its storage (${defaultSqliteFileName}); pass --force to do so`);
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const SqliteDatabase = loadSqlite();
  let lock: Database.Database;
  try {
    // Held until the restored file is in place: a server starting meanwhile waits for nothing, it stops.
    lock = lockDataDir(dataDir, SqliteDatabase);
  } catch (err) {
    throw new SnapshotError('InUse', `data dir ${dataDir} is in use by a running server: stop it before restoring (${(err as Error).message})`);
  }
  const target = path.join(dataDir, defaultSqliteFileName);
  const partial = `${target}.restoring`;
  try {
    const replaced = previousRevision(target, SqliteDatabase);
    rmSync(partial, { force: true });
    copyFileSync(file, partial);
    if (info.size % 512 === sha256Size) truncateSync(partial, info.size - sha256Size);
    const db = new SqliteDatabase(partial, { fileMustExist: true });
    let restoredRevision: number;
    try {
      const checked = verifySqlite(file, info.size, db);
      restoredRevision = Math.max(checked.revision, replaced) + bump;
      db.transaction(() => {
        db.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'log'`).run(restoredRevision);
        db.prepare(`INSERT INTO meta (key, value) VALUES ('compact_rev', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(restoredRevision);
      })();
      db.pragma('journal_mode = DELETE');
    } finally {
      db.close();
    }
    fsyncFile(partial);
    for (const stale of ['-wal', '-shm', '-journal']) rmSync(target + stale, { force: true });
    renameSync(partial, target);
    fsyncFile(dataDir);
    return { ...info, restoredRevision };
  } finally {
    rmSync(partial, { force: true });
    lock.close();
  }
}

/** The revision of the store a restore replaces, when it is readable (0 otherwise). */
function previousRevision(file: string, SqliteDatabase: typeof Database): number {
  if (!existsSync(file)) return 0;
  try {
    const db = new SqliteDatabase(file, { fileMustExist: true });
    try {
      return (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'log'`).get() as { seq: number } | undefined)?.seq ?? 0;
    } finally {
      db.close();
    }
  } catch {
    // A damaged store is what a restore replaces: the bump alone moves past it.
    return 0;
  }
}
