import path from 'node:path';
import type Database from 'better-sqlite3';
import { newServiceUnavailable } from '@plat/api-model';

/** The lock file of a SQLite data dir, beside `storage.db`. */
export const dataDirLockFileName = 'storage.lock';

/**
 * Takes the data dir's ownership lock: a write to `storage.lock` in SQLite's EXCLUSIVE locking
 * mode, which keeps the file's POSIX lock until the connection closes or the process dies. One
 * server owns a data dir (every change must pass through its watch hub), while `storage.db` itself
 * stays openable by readers such as `apiserver snapshot save`, which copies it online.
 * Throws 503 "in use by another process" when another connection holds it.
 */
export function lockDataDir(dataDir: string, SqliteDatabase: typeof Database): Database.Database {
  const lock = new SqliteDatabase(path.join(dataDir, dataDirLockFileName), { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS owner (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL)');
    lock.prepare('INSERT OR REPLACE INTO owner (id, pid) VALUES (1, ?)').run(process.pid);
    return lock;
  } catch (err) {
    lock.close();
    if (/^SQLITE_BUSY/.test((err as { code?: string }).code ?? '')) {
      throw newServiceUnavailable(`storage data dir ${dataDir} is in use by another process`);
    }
    throw err;
  }
}
