import { countAnnotation, opAnnotation } from './etcd-history.js';
import type { ListOp, Outcome, WatchChain, WatchSegment, WriteOp } from './history.js';
import { resourcePath, type Replica, type Reply } from './replica.js';

/** A small seeded generator (mulberry32), so a seed replays the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ObjectBody {
  metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  [k: string]: unknown;
}

function isStatus(body: Record<string, unknown> | undefined): boolean {
  return !!body && body['kind'] === 'Status' && typeof body['code'] === 'number';
}

/** How a write's reply reads for the history. */
function outcomeOf(r: Reply): { outcome: Outcome; notStatus?: boolean } {
  if ('error' in r) return { outcome: { kind: 'unknown', message: r.error } };
  if (r.status >= 200 && r.status < 300) {
    const rv = Number((r.body as ObjectBody | undefined)?.metadata?.resourceVersion);
    return { outcome: { kind: 'ok', rv } };
  }
  const notStatus = !isStatus(r.body) || undefined;
  if (r.status >= 500) return { outcome: { kind: 'unknown', code: r.status, message: String(r.body?.['message'] ?? r.text) }, notStatus };
  return { outcome: { kind: 'failed', code: r.status, reason: String(r.body?.['reason'] ?? '') }, notStatus };
}

export interface TrafficOptions {
  replicas: Replica[];
  clients: number;
  seed: number;
  /** The PEM every object carries (a CA certificate). */
  anchorPem: string;
  now: () => number;
  signal: AbortSignal;
}

export interface Recorded {
  writes: WriteOp[];
  lists: ListOp[];
  watches: WatchChain[];
}

/**
 * Mixed traffic through every replica: creates, read-modify-write updates of a counter with the
 * resourceVersion read as precondition, deletes with a resourceVersion precondition, paginated
 * consistent lists; every request and reply recorded.
 */
export async function runClients(o: TrafficOptions, rec: Recorded): Promise<void> {
  // One pool of names for all clients: they race on the same objects (409s, deletes under an update).
  const names: string[] = [];
  await Promise.all(Array.from({ length: o.clients }, (_, i) => runClient(o, rec, `c${i}`, seededRandom(o.seed * 1000 + i), names)));
}

async function runClient(o: TrafficOptions, rec: Recorded, client: string, rand: () => number, names: string[]): Promise<void> {
  let n = 0;
  let ops = 0;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  while (!o.signal.aborted) {
    const replica = pick(o.replicas);
    const r = rand();
    const id = `${client}-${++ops}`;
    if (r < 0.3 || names.length < 3) {
      const name = `${client}-o${++n}`;
      names.push(name);
      const start = o.now();
      const reply = await replica.request('POST', resourcePath, {
        body: {
          apiVersion: 'certificates.plat.io/v1alpha1',
          kind: 'ClusterTrustBundle',
          metadata: { name, annotations: { [opAnnotation]: id, [countAnnotation]: '0' } },
          spec: { trustBundle: o.anchorPem },
        },
      });
      rec.writes.push({ id, client, replica: replica.index, type: 'create', name, start, end: o.now(), count: 0, ...outcomeOf(reply) });
    } else if (r < 0.8) {
      const name = pick(names);
      if (!name) continue;
      const got = await replica.request('GET', `${resourcePath}/${name}`);
      if (!('status' in got) || got.status !== 200 || !got.body) continue;
      const obj = got.body as ObjectBody;
      const rv = obj.metadata?.resourceVersion;
      const count = Number(obj.metadata?.annotations?.[countAnnotation] ?? 0) + 1;
      const start = o.now();
      const reply = await replica.request('PUT', `${resourcePath}/${name}`, {
        body: { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata?.annotations, [opAnnotation]: id, [countAnnotation]: String(count) } } },
      });
      rec.writes.push({ id, client, replica: replica.index, type: 'update', name, start, end: o.now(), expectedRv: Number(rv), count, ...outcomeOf(reply) });
    } else if (r < 0.92) {
      const i = Math.floor(rand() * names.length);
      const name = names[i]!;
      const got = await replica.request('GET', `${resourcePath}/${name}`);
      if (!('status' in got) || got.status !== 200 || !got.body) {
        if ('status' in got && got.status === 404 && names[i] === name) names.splice(i, 1);
        continue;
      }
      const rv = (got.body as ObjectBody).metadata?.resourceVersion;
      const start = o.now();
      const reply = await replica.request('DELETE', `${resourcePath}/${name}`, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: rv } },
      });
      const out = outcomeOf(reply);
      // A delete answers the object as it was; its deletion revision is etcd's next one for the key.
      if (out.outcome.kind === 'ok' && names[i] === name) names.splice(i, 1);
      rec.writes.push({ id, client, replica: replica.index, type: 'delete', name, start, end: o.now(), expectedRv: Number(rv), ...out });
    } else {
      const start = o.now();
      const listed = await listAll(replica, 7);
      if (listed) rec.lists.push({ client, replica: replica.index, start, end: o.now(), rv: listed.rv, names: listed.names, pageRvs: listed.pageRvs });
    }
    await new Promise((res) => setTimeout(res, 5 + rand() * 20));
  }
}

/** A consistent list (resourceVersion "") in pages of `limit`; undefined when a page failed. */
export async function listAll(
  replica: Replica,
  limit?: number,
): Promise<{ rv: number; names: string[]; objects: Array<{ name: string; rv: number }>; pageRvs: number[] } | undefined> {
  const objects: Array<{ name: string; rv: number }> = [];
  const pageRvs: number[] = [];
  let cont = '';
  let rv = 0;
  for (;;) {
    const q = new URLSearchParams();
    if (limit) q.set('limit', String(limit));
    if (cont) q.set('continue', cont);
    const r = await replica.request('GET', `${resourcePath}?${q}`);
    if (!('status' in r) || r.status !== 200 || !r.body) return undefined;
    const list = r.body as { metadata: { resourceVersion: string; continue?: string }; items: ObjectBody[] };
    pageRvs.push(Number(list.metadata.resourceVersion));
    if (!rv) rv = pageRvs[0]!;
    for (const item of list.items) objects.push({ name: item.metadata!.name!, rv: Number(item.metadata!.resourceVersion) });
    cont = list.metadata.continue ?? '';
    if (!cont) return { rv, names: objects.map((x) => x.name), objects, pageRvs };
  }
}

/**
 * A watcher as an informer runs one: list, then watch from the list's resourceVersion, resuming
 * after every end from the last resourceVersion it received (on any replica), listing again after
 * a 410. Every event is recorded per connection.
 */
export async function runWatcher(o: TrafficOptions, rec: Recorded, id: string, rand: () => number): Promise<void> {
  let chains = 0;
  while (!o.signal.aborted) {
    const listed = await listAll(o.replicas[Math.floor(rand() * o.replicas.length)]!);
    if (!listed) {
      await new Promise((r) => setTimeout(r, 300));
      continue;
    }
    const chain: WatchChain = { id: `${id}.${++chains}`, segments: [] };
    rec.watches.push(chain);
    let from = listed.rv;
    for (;;) {
      if (o.signal.aborted) return;
      const replica = o.replicas[Math.floor(rand() * o.replicas.length)]!;
      const seg: WatchSegment = { replica: replica.index, from, events: [], bookmarks: [], end: 'closed' };
      const timeout = 3 + Math.floor(rand() * 8);
      let gone = false;
      try {
        const res = await replica.stream(`${resourcePath}?watch=true&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=${timeout}`, o.signal);
        if (res.statusCode !== 200) {
          await res.body.text();
          seg.end = `status ${res.statusCode}`;
        } else {
          chain.segments.push(seg);
          let buffer = '';
          for await (const chunk of res.body) {
            buffer += chunk.toString();
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = JSON.parse(buffer.slice(0, nl)) as { type: string; object: ObjectBody & { code?: number } };
              buffer = buffer.slice(nl + 1);
              const rv = Number(line.object.metadata?.resourceVersion);
              if (line.type === 'BOOKMARK') {
                seg.bookmarks.push(rv);
                if (rv > from) from = rv;
              } else if (line.type === 'ERROR') {
                seg.end = `error ${line.object.code}`;
                gone = line.object.code === 410;
              } else {
                seg.events.push({ type: line.type as 'ADDED', name: line.object.metadata!.name!, rv });
                if (rv > from) from = rv;
              }
            }
          }
          if (seg.end === 'closed') seg.end = 'ended';
        }
      } catch (err) {
        seg.end = `closed: ${(err as Error).message}`;
      }
      if (gone) break;
      if (seg.end !== 'ended') await new Promise((r) => setTimeout(r, 200));
    }
  }
}
