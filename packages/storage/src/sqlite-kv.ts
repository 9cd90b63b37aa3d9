import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { newServiceUnavailable } from '@plat/api-model';
import type { Kv, KvEvent, KvRecord, KvWatch, KvWatchHandlers, RangeOptions, RangeResult, TxnResult } from './kv.js';
import { CompactedError, readRevision } from './kv.js';
import { lockDataDir } from './data-dir-lock.js';
import { loadSqlite } from './load-sqlite.js';
import { LocalWatchHub } from './local-watch-hub.js';

export interface SqliteKvOptions {
  /** Folder of the database file; created (mode 0700) when missing. */
  dataDir: string;
  /** File name inside dataDir (default `storage.db`). */
  fileName?: string;
  /**
   * Period of automatic compaction in ms (default 5 minutes, 0 disables): each run compacts to
   * the revision that was current at the previous run, so at least one period of history stays
   * available to watchers and paginated lists, as kube-apiserver's compactor does with etcd.
   */
  compactIntervalMs?: number;
}

interface LogRow {
  id: number;
  name: string;
  deleted: number;
  value: string | null;
  prev_revision: number;
  prev_value?: string | null;
}

/**
 * Keys whose newest revision the store keeps in memory (see SqliteKv.latestIds): 4,096 entries of
 * a key and a number, well under 1 MiB.
 */
export const sqliteLatestIdsCapacity = 4096;

/** The name of the SQLite file in the data dir. */
export const defaultSqliteFileName = 'storage.db';

/**
 * A revision log in one SQLite table, in the style of k3s' kine: every write appends a row whose
 * id (AUTOINCREMENT, never reused) is the global revision; a delete appends a tombstone; reading
 * at revision R takes, per key, the newest row with id <= R. WAL with synchronous=FULL fsyncs each
 * commit, so a write is durable before its promise resolves. The data dir is locked (data-dir-lock.ts):
 * one process owns it, and therefore every change passes through this object's watch hub; other
 * processes may read the database (an online snapshot).
 */
export class SqliteKv implements Kv {
  readonly backend = 'sqlite';
  readonly file: string;
  private readonly db: Database.Database;
  private readonly lock: Database.Database;
  private readonly hub = new LocalWatchHub();
  private revision: number;
  private compacted: number;
  private timer: NodeJS.Timeout | undefined;
  private lastTickRevision: number;
  private readonly stmt: {
    latest: Database.Statement<[string]>;
    latestId: Database.Statement<[string]>;
    at: Database.Statement<[string, number]>;
    range: Database.Statement<[{ start: string; end: string; rev: number; limit: number }]>;
    count: Database.Statement<[{ start: string; end: string; rev: number }]>;
    insert: Database.Statement<[string, number, number, string | null]>;
    since: Database.Statement<[number, string, string]>;
    setMeta: Database.Statement<[string, number]>;
    compact: Database.Statement<{ c: number }>;
  };
  /** The database file's identity at open: writes are acknowledged only while the path still names it. */
  private readonly identity: { dev: number; ino: number };
  /**
   * The newest revision of recently read or written keys (0: absent or deleted), so that a get of
   * an object the read cache holds asks nothing of SQLite. Exact because this process is the only
   * writer (the data dir lock) and a commit and its entry here happen in one synchronous step
   * (`committed`); a write that fails after its commit may have changed the file without an
   * entry here, so every failure empties it. Buys about 29 µs of CPU per GET of one
   * ClusterTrustBundle (the `latestId` query), 15% of a GET's CPU in
   * `node tools/bench/apiserver/profile.mjs` (docs/performance.md).
   */
  private readonly latestIds = new LRUCache<string, number>({ max: sqliteLatestIdsCapacity });
  /** A write (or compaction) failed and none succeeded since: readiness probes with a write of its own. */
  private writeFailed = false;
  private readonly txCreate: (key: string, value: string) => TxnResult & { prev?: LogRow };
  private readonly txUpdate: (key: string, value: string | null, expected: number) => TxnResult & { prev?: LogRow };

  constructor(opts: SqliteKvOptions) {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    this.file = path.join(opts.dataDir, opts.fileName ?? defaultSqliteFileName);
    const SqliteDatabase = loadSqlite();
    this.lock = lockDataDir(opts.dataDir, SqliteDatabase);
    let db: Database.Database;
    try {
      db = new SqliteDatabase(this.file, { timeout: 200 });
    } catch (err) {
      this.lock.close();
      throw err;
    }
    this.db = db;
    try {
      // auto_vacuum must be chosen before the first table exists; compaction then returns pages.
      db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec(`
        CREATE TABLE IF NOT EXISTS log (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          name TEXT NOT NULL,
          deleted INTEGER NOT NULL,
          prev_revision INTEGER NOT NULL,
          value TEXT
        );
        CREATE INDEX IF NOT EXISTS log_name_id_deleted ON log (name, id, deleted);
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
      `);
    } catch (err) {
      db.close();
      this.lock.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw newServiceUnavailable(`storage data dir ${opts.dataDir} is in use by another process`);
      }
      throw err;
    }
    const st = statSync(this.file);
    this.identity = { dev: st.dev, ino: st.ino };
    // Revision 1 is the empty store, as in etcd: the first write gets revision 2.
    db.prepare(`INSERT INTO sqlite_sequence (name, seq) SELECT 'log', 1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'log')`).run();
    this.revision = (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'log'`).get() as { seq: number }).seq;
    this.compacted = (db.prepare(`SELECT value FROM meta WHERE key = 'compact_rev'`).get() as { value: number } | undefined)?.value ?? 0;
    this.lastTickRevision = this.revision;

    // The live rows of a range at revision @rev: the newest row of each key at or below @rev, when
    // it is not a tombstone. Walks the (name, id, deleted) index in key order, so a page stops
    // after LIMIT rows and a count never touches the values.
    const live = `l.name >= @start AND l.name < @end AND l.id <= @rev AND l.deleted = 0
      AND NOT EXISTS (SELECT 1 FROM log n WHERE n.name = l.name AND n.id > l.id AND n.id <= @rev)`;
    this.stmt = {
      latest: db.prepare(`SELECT id, name, deleted, value, prev_revision FROM log WHERE name = ? ORDER BY id DESC LIMIT 1`),
      // Answered from the (name, id, deleted) index alone: the value is not read.
      latestId: db.prepare(`SELECT id, deleted FROM log WHERE name = ? ORDER BY id DESC LIMIT 1`),
      at: db.prepare(`SELECT id, name, deleted, value, prev_revision FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`),
      range: db.prepare(`SELECT l.name AS name, l.id AS id, l.value AS value FROM log l WHERE ${live} ORDER BY l.name LIMIT @limit`),
      count: db.prepare(`SELECT COUNT(*) AS n FROM log l WHERE ${live}`),
      insert: db.prepare(`INSERT INTO log (name, deleted, prev_revision, value) VALUES (?, ?, ?, ?)`),
      since: db.prepare(
        `SELECT l.id, l.name, l.deleted, l.value, l.prev_revision, p.value AS prev_value
         FROM log l LEFT JOIN log p ON p.id = l.prev_revision
         WHERE l.id > ? AND l.name >= ? AND l.name < ? ORDER BY l.id`,
      ),
      setMeta: db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
      // Drop tombstones at or below c and every row superseded by a newer row at or below c.
      compact: db.prepare(
        `DELETE FROM log WHERE id <= :c AND (deleted = 1 OR id < (SELECT MAX(l2.id) FROM log l2 WHERE l2.name = log.name AND l2.id <= :c))`,
      ),
    };

    this.txCreate = db.transaction((key: string, value: string) => {
      const prev = this.stmt.latest.get(key) as LogRow | undefined;
      if (prev && !prev.deleted) return { succeeded: false as const, current: toRecord(prev) };
      const info = this.stmt.insert.run(key, 0, 0, value);
      return { succeeded: true as const, revision: Number(info.lastInsertRowid) };
    });
    this.txUpdate = db.transaction((key: string, value: string | null, expected: number) => {
      const prev = this.stmt.latest.get(key) as LogRow | undefined;
      if (!prev || prev.deleted || prev.id !== expected) {
        return { succeeded: false as const, current: prev && !prev.deleted ? toRecord(prev) : undefined };
      }
      const info = this.stmt.insert.run(key, value === null ? 1 : 0, prev.id, value);
      return { succeeded: true as const, revision: Number(info.lastInsertRowid), prev };
    });

    const interval = opts.compactIntervalMs ?? 5 * 60_000;
    if (interval > 0) {
      this.timer = setInterval(() => this.periodicCompaction(), interval);
      this.timer.unref();
    }
  }

  private periodicCompaction(): void {
    const target = this.lastTickRevision;
    this.lastTickRevision = this.revision;
    if (target <= this.compacted) return;
    try {
      this.write(() => this.compactSync(target));
    } catch {
      // A full or read-only disk, or a lost file: the next period tries again; /readyz reports it.
    }
  }

  /**
   * Why the database at `file` is no longer the one this store writes, if it is not: removed (a
   * deleted data dir) or replaced. SQLite keeps writing to the open, unlinked file, and
   * everything written there is gone at the next start.
   */
  private fileLost(): string | undefined {
    const st = statSync(this.file, { throwIfNoEntry: false });
    if (!st) return `the database file ${this.file} was removed after the server opened it`;
    if (st.dev !== this.identity.dev || st.ino !== this.identity.ino) return `the database file ${this.file} was replaced after the server opened it`;
    return undefined;
  }

  /**
   * Runs a write transaction and acknowledges it only if the database file is still in place
   * after the commit (checked after, so that a removal during the write is caught too).
   */
  private write<T>(tx: () => T): T {
    let res: T;
    try {
      res = tx();
    } catch (err) {
      this.writeFailed = true;
      this.latestIds.clear();
      throw err;
    }
    const lost = this.fileLost();
    if (lost) {
      this.writeFailed = true;
      this.latestIds.clear();
      throw newServiceUnavailable(`storage is unavailable: ${lost}; writes are refused until the server is restarted`);
    }
    this.writeFailed = false;
    return res;
  }

  async get(key: string, revision?: number): Promise<{ record: KvRecord | undefined; revision: number }> {
    const at = readRevision(revision, this.revision, this.compacted);
    const row = (revision === undefined ? this.stmt.latest.get(key) : this.stmt.at.get(key, at)) as LogRow | undefined;
    return { record: row && !row.deleted ? toRecord(row) : undefined, revision: at };
  }

  async modRevision(key: string): Promise<{ modRevision: number | undefined; revision: number }> {
    const id = this.latestModRevision(key);
    return { modRevision: id === 0 ? undefined : id, revision: this.revision };
  }

  latestModRevision(key: string): number {
    let id = this.latestIds.get(key);
    if (id === undefined) {
      const row = this.stmt.latestId.get(key) as { id: number; deleted: number } | undefined;
      id = row && !row.deleted ? row.id : 0;
      this.latestIds.set(key, id);
    }
    return id;
  }

  async range(start: string, end: string, opts: RangeOptions): Promise<RangeResult> {
    const at = readRevision(opts.revision, this.revision, this.compacted);
    if (opts.limit === 0) return { records: [], count: this.countAt(start, end, at), more: false, revision: at };
    // One row past the limit tells whether more follow without counting the whole range.
    const limit = opts.limit === undefined ? -1 : opts.limit + 1;
    const rows = this.stmt.range.all({ start, end, rev: at, limit }) as LogRow[];
    const more = opts.limit !== undefined && rows.length > opts.limit;
    const records = (more ? rows.slice(0, opts.limit) : rows).map(toRecord);
    const count = opts.count && more ? this.countAt(start, end, at) : records.length + (more ? 1 : 0);
    return { records, count, more, revision: at };
  }

  private countAt(start: string, end: string, rev: number): number {
    return (this.stmt.count.get({ start, end, rev }) as { n: number }).n;
  }

  async count(start: string, end: string): Promise<number> {
    return this.countAt(start, end, this.revision);
  }

  async create(key: string, value: string): Promise<TxnResult> {
    const res = this.write(() => this.txCreate(key, value));
    if (res.succeeded) this.committed({ type: 'put', key, value, revision: res.revision });
    return res;
  }

  async update(key: string, value: string, expected: number): Promise<TxnResult> {
    const res = this.write(() => this.txUpdate(key, value, expected));
    if (res.succeeded) {
      this.committed({ type: 'put', key, value, revision: res.revision, prevValue: res.prev?.value ?? undefined, prevRevision: res.prev?.id });
    }
    return strip(res);
  }

  async delete(key: string, expected: number): Promise<TxnResult> {
    const res = this.write(() => this.txUpdate(key, null, expected));
    if (res.succeeded) {
      this.committed({ type: 'delete', key, revision: res.revision, prevValue: res.prev?.value ?? undefined, prevRevision: res.prev?.id });
    }
    return strip(res);
  }

  private committed(event: KvEvent): void {
    this.revision = event.revision;
    this.latestIds.set(event.key, event.type === 'delete' ? 0 : event.revision);
    this.hub.publish(event);
  }

  async watch(start: string, end: string, after: number, handlers: KvWatchHandlers): Promise<KvWatch> {
    if (after < this.compacted) throw new CompactedError(after, this.compacted);
    // Row by row: a watch from far back reads the whole history after it, and with large objects
    // that is more than should be in memory at once (the watcher's own bound stops it early).
    const rows = this.stmt.since.iterate(after, start, end) as IterableIterator<LogRow>;
    const catchUp = mapIterable(
      rows,
      (r): KvEvent =>
        r.deleted
          ? { type: 'delete', key: r.name, revision: r.id, prevValue: r.prev_value ?? undefined, prevRevision: r.prev_revision }
          : {
              type: 'put',
              key: r.name,
              value: r.value ?? undefined,
              revision: r.id,
              prevValue: r.prev_revision ? (r.prev_value ?? undefined) : undefined,
              prevRevision: r.prev_revision || undefined,
            },
    );
    return this.hub.add(start, end, handlers, catchUp, this.revision);
  }

  private compactSync(revision: number): void {
    const at = Math.min(revision, this.revision);
    if (at <= this.compacted) return;
    this.db.transaction(() => {
      this.stmt.compact.run({ c: at });
      this.stmt.setMeta.run('compact_rev', at);
    })();
    this.compacted = at;
    // Return freed pages to the file system and fold the WAL back into the database.
    this.db.pragma('incremental_vacuum');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async compact(revision: number): Promise<void> {
    this.write(() => this.compactSync(revision));
  }

  /** Writes a consistent copy of the database to `destination` while the store keeps serving. */
  async backup(destination: string): Promise<void> {
    await this.db.backup(destination);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  /**
   * Ready while the database file is still the one opened and writes work: after a failed write,
   * a small write of its own (the time, in `meta`) must succeed first, which a full or read-only
   * disk refuses.
   */
  async ready(): Promise<boolean> {
    if (!this.db.open || this.fileLost()) return false;
    if (!this.writeFailed) return true;
    try {
      this.write(() => this.stmt.setMeta.run('ready_probe', Date.now()));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.hub.closeAll(newServiceUnavailable('storage is closed'));
    if (this.db.open) this.db.close();
    if (this.lock.open) this.lock.close();
  }
}

function* mapIterable<T, U>(items: Iterable<T>, fn: (item: T) => U): Generator<U> {
  for (const item of items) yield fn(item);
}

function toRecord(row: LogRow): KvRecord {
  return { key: row.name, value: row.value ?? '', modRevision: row.id };
}

function strip(res: TxnResult & { prev?: LogRow }): TxnResult {
  return res.succeeded ? { succeeded: true, revision: res.revision } : { succeeded: false, current: res.current };
}
