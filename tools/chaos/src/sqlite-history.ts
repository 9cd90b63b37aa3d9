import { countAnnotation, opAnnotation } from './etcd-history.js';
import type { EtcdEvent } from './history.js';

interface LogRow {
  id: number;
  name: string;
  deleted: number;
  prev_revision: number;
  value: string | null;
}

/**
 * Reads the SQLite backend's own history (its `log` table: one row per revision, see
 * packages/storage/src/sqlite-kv.ts) of the keys under `prefix`, as the checker takes etcd's.
 * The server must be stopped: the file is opened read-only.
 */
export async function readSqliteHistory(file: string, prefix: string): Promise<EtcdEvent[]> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(`SELECT id, name, deleted, prev_revision, value FROM log WHERE name >= ? AND name < ? ORDER BY id`).all(prefix, `${prefix}\uffff`) as LogRow[];
    return rows.map((r): EtcdEvent => {
      const name = r.name.slice(prefix.length);
      if (r.deleted) return { rev: r.id, type: 'delete', name, created: false, prevRev: r.prev_revision };
      const annotations = (JSON.parse(r.value ?? '{}') as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations ?? {};
      const count = annotations[countAnnotation];
      return {
        rev: r.id,
        type: 'put',
        name,
        op: annotations[opAnnotation],
        count: count === undefined ? undefined : Number(count),
        created: r.prev_revision === 0,
        prevRev: r.prev_revision || undefined,
      };
    });
  } finally {
    db.close();
  }
}
