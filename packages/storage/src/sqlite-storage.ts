import { MvccStorage } from './mvcc-storage.js';
import type { MvccStorageOptions } from './mvcc-storage.js';
import { SqliteKv } from './sqlite-kv.js';
import type { SqliteKvOptions } from './sqlite-kv.js';

export type SqliteStorageOptions = SqliteKvOptions & MvccStorageOptions;

/**
 * The embedded default backend: a kine-style revision log in `<dataDir>/storage.db`. Every write
 * is one fsynced transaction, so an acknowledged write survives SIGKILL and power loss.
 */
export class SqliteStorage extends MvccStorage {
  /** The database file. */
  readonly file: string;

  private readonly sqlite: SqliteKv;

  constructor(opts: SqliteStorageOptions) {
    const kv = new SqliteKv(opts);
    super(kv, opts);
    this.sqlite = kv;
    this.file = kv.file;
  }

  /**
   * Online backup: a consistent copy of the database at `destination` (a file path), taken
   * while the store keeps serving. Open the copy as a data dir's `storage.db` to restore.
   */
  backup(destination: string): Promise<void> {
    return this.sqlite.backup(destination);
  }
}
