import type { Storage, StoredObject, Watch, WatchEvent, WatchOptions } from './index.js';
import { MemoryStorage, MvccStorage, WatchCache } from './index.js';
import type { KvWatchHandlers } from './kv.js';
import { MemoryKv } from './memory-kv.js';

/**
 * A backend that breaks the "each change once, in order" rule the way a watch with two
 * reconnects did: every batch arrives twice, and the first batch comes again after later ones.
 */
class RepeatingKv extends MemoryKv {
  override async watch(start: string, end: string, after: number, handlers: KvWatchHandlers) {
    const seen: Parameters<KvWatchHandlers['onEvents']>[0][] = [];
    return super.watch(start, end, after, {
      ...handlers,
      onEvents: (events) => {
        seen.push(events);
        handlers.onEvents(events);
        handlers.onEvents(events);
        if (seen.length > 1) handlers.onEvents(seen[0]);
      },
    });
  }
}

/** A Storage whose watches repeat every event and then send the first object ADDED again after later ones. */
class RepeatingStorage extends MemoryStorage {
  override async watch(prefix: string, opts?: WatchOptions): Promise<Watch> {
    const inner = await super.watch(prefix, opts);
    let first: WatchEvent | undefined;
    const iterator = async function* (): AsyncGenerator<WatchEvent> {
      for await (const ev of inner) {
        yield ev;
        if (ev.type === 'BOOKMARK' || ev.initial) continue;
        yield ev;
        if (!first) first = ev;
        else yield first;
      }
    };
    return { stop: () => inner.stop(), [Symbol.asyncIterator]: iterator };
  }
}

const dir = '/certificates.plat.io/clustertrustbundles';
const key = (n: string) => `${dir}/${n}`;
const obj = (n: string) => ({ metadata: { name: n }, spec: { n } });

async function take(w: Watch, n: number, ms = 2000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  while (out.length < n && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([it.next(), new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), deadline - Date.now())))]);
    clearTimeout(timer);
    if (!r || r.done) break;
    out.push(r.value);
  }
  return out;
}

const names = (events: WatchEvent[]) => events.map((e) => `${e.type} ${(e.object as StoredObject).metadata?.name} ${(e.object as StoredObject).metadata?.resourceVersion}`);

async function writeThree(s: Storage): Promise<void> {
  await s.create(key('a'), obj('a'));
  await s.create(key('b'), obj('b'));
  await s.delete(key('a'));
}

describe('watch event guards', () => {
  it('the storage watch delivers each change once and counts and logs the repeated ones', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const s = new MvccStorage(new RepeatingKv(), { logger: { error: (_m, fields) => logged.push(fields) } });
    const w = await s.watch(dir, { sendInitialEvents: false });
    await writeThree(s);
    const got = await take(w, 4, 500);
    expect(names(got)).toEqual(['ADDED a 2', 'ADDED b 3', 'DELETED a 4']);
    // Each batch once more, and the first batch after the second and after the third.
    expect(s.watchEventDrops()).toEqual({ storage: 5 });
    expect(logged[0]).toMatchObject({ layer: 'storage', type: 'put', key: key('a'), revision: 2, lastDelivered: 2 });
    w.stop();
    await s.close();
  });

  it('the watch cache applies and delivers each change once: a deleted object does not come back', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const cache = await WatchCache.open(new RepeatingStorage(), { logger: { error: (_m, fields) => logged.push(fields) } });
    const w = await cache.watch(dir, { sendInitialEvents: false, resourceVersion: '0' });
    await writeThree(cache);
    const got = await take(w, 4, 500);
    expect(names(got)).toEqual(['ADDED a 2', 'ADDED b 3', 'DELETED a 4']);
    expect((await cache.list(dir, { resourceVersion: '0' })).items.map((o) => o.metadata?.name)).toEqual(['b']);
    // Per event after the first: its repeat, then the first event again.
    expect(cache.watchEventDrops()['watch-cache']).toBe(5);
    expect(logged.every((f) => f.layer === 'watch-cache')).toBe(true);
    w.stop();
    await cache.close();
  });

  it('counts nothing when the backend keeps the rule', async () => {
    const s = new MemoryStorage();
    const cache = await WatchCache.open(s);
    const w = await cache.watch(dir, { sendInitialEvents: false, resourceVersion: '0' });
    await writeThree(cache);
    expect(names(await take(w, 3))).toEqual(['ADDED a 2', 'ADDED b 3', 'DELETED a 4']);
    expect(cache.watchEventDrops()).toEqual({});
    w.stop();
    await cache.close();
  });
});
