import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

const nodeRequire = createRequire(import.meta.url);
let sqliteModule: typeof Database | undefined;

/**
 * better-sqlite3 is loaded by the first SQLite store, not by importing @plat/storage (memory
 * users never load it). It is a native CommonJS addon and the store opens its file in the
 * constructor, so it is required synchronously there.
 */
export function loadSqlite(): typeof Database {
  return (sqliteModule ??= nodeRequire('better-sqlite3') as typeof Database);
}
