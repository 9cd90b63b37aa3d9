import type { IWatchResponse } from 'etcd3';
import type { EtcdEvent } from './history.js';

export const opAnnotation = 'chaos.plat.io/op';
export const countAnnotation = 'chaos.plat.io/count';

interface StoredValue {
  metadata?: { annotations?: Record<string, string> };
}

/**
 * Reads etcd's own history of every key under `prefix` (revisions 1 to now, with each change's
 * previous revision) straight from etcd: a watch from revision 1 replays it. The end is a marker
 * key written first, outside the prefix and outside the apiserver's own range (`/registry0...`):
 * the replay is complete when its put arrives. (A progress notification cannot say so on etcd
 * before 3.4.24, which may send a requested one ahead of the events: etcd-io/etcd#15220.)
 */
export async function readEtcdHistory(servers: string[], prefix: string, timeoutMs = 30_000): Promise<EtcdEvent[]> {
  const { Etcd3 } = await import('etcd3');
  const client = new Etcd3({ hosts: servers });
  try {
    const marker = `${prefix.split('/').slice(0, 2).join('/')}0chaos-history-end`;
    const end = Number((await client.kv.put({ key: Buffer.from(marker), value: Buffer.from('end') })).header.revision);
    const stream = await client.watchClient.watch();
    const events: EtcdEvent[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`etcd's history was not replayed within ${timeoutMs} ms`)), timeoutMs);
        const done = (err?: Error) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        };
        let created = false;
        stream.on('data', (res: IWatchResponse) => {
          if (!created) {
            created = true;
            if (res.canceled) done(new Error(`etcd refused the history watch: ${res.cancel_reason} (compacted at ${res.compact_revision})`));
            return;
          }
          if (res.canceled) return done(new Error(`etcd ended the history watch: ${res.cancel_reason}`));
          for (const e of res.events ?? []) {
            const key = e.kv.key.toString('utf8');
            const rev = Number(e.kv.mod_revision);
            if (rev >= end) return done();
            if (!key.startsWith(prefix)) continue;
            const name = key.slice(prefix.length);
            const prev = e.prev_kv && e.prev_kv.key?.length ? Number(e.prev_kv.mod_revision) : undefined;
            if (e.type === 'Delete') {
              events.push({ rev, type: 'delete', name, created: false, prevRev: prev });
              continue;
            }
            const annotations = (JSON.parse(e.kv.value.toString('utf8')) as StoredValue).metadata?.annotations ?? {};
            const count = annotations[countAnnotation];
            events.push({
              rev,
              type: 'put',
              name,
              op: annotations[opAnnotation],
              count: count === undefined ? undefined : Number(count),
              created: Number(e.kv.create_revision) === rev,
              prevRev: prev,
            });
          }
        });
        stream.on('error', (err: Error) => done(err));
        stream.write({ create_request: { key: Buffer.from(prefix), range_end: Buffer.from(`${marker}\0`), start_revision: 1, prev_kv: true } });
      });
    } finally {
      stream.cancel();
    }
    return events;
  } finally {
    client.close();
  }
}
