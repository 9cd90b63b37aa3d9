import fc from 'fast-check';
import type { ListOptions, Predicate, Storage, Watch, WatchEvent, WatchOptions } from './index.js';
import { MemoryStorage, WatchCache } from './index.js';
import { deliverTurnSize } from './watch-cache.js';

/** A backend that counts its reads and lets a test break its watches. */
class CountingBackend extends MemoryStorage {
  watchCalls = 0;
  lists = 0;
  gets = 0;
  open: Watch[] = [];
  override async watch(prefix: string, opts?: WatchOptions): Promise<Watch> {
    this.watchCalls++;
    const w = await super.watch(prefix, opts);
    this.open.push(w);
    return w;
  }
  override list(...args: Parameters<Storage['list']>): ReturnType<Storage['list']> {
    this.lists++;
    return super.list(...args);
  }
  override get(...args: Parameters<Storage['get']>): ReturnType<Storage['get']> {
    this.gets++;
    return super.get(...args);
  }
}

const key = (n: string) => `/certificates.plat.io/clustertrustbundles/${n}`;
const prefix = '/certificates.plat.io/clustertrustbundles';
const obj = (n: string) => ({ metadata: { name: n }, spec: { n } });

async function next(w: Watch, ms = 10_000): Promise<IteratorResult<WatchEvent>> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      w[Symbol.asyncIterator]().next(),
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new Error('timed out')), ms);
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}

describe('watch cache', () => {
  let backend: CountingBackend;
  let cache: WatchCache;
  beforeEach(async () => {
    backend = new CountingBackend();
    for (const n of ['a', 'b', 'c']) await backend.create(key(n), obj(n));
    cache = await WatchCache.open(backend, { capacity: 5, freshnessTimeoutMs: 200 });
  });
  afterEach(async () => {
    await cache.close();
  });

  it('serves many watchers from one backend watch', async () => {
    const watchers = await Promise.all(Array.from({ length: 50 }, () => cache.watch(prefix, { sendInitialEvents: false })));
    const created = await cache.create(key('d'), obj('d'));
    for (const w of watchers) {
      const r = await next(w);
      expect(r.value?.type).toBe('ADDED');
      expect(r.value?.object).toEqual(created);
    }
    // Each watcher got its own copy.
    expect(backend.watchCalls).toBe(1);
    for (const w of watchers) w.stop();
  });

  it('delivers a change to more watchers than deliverTurnSize in turns, in order, once each, and a watch started meanwhile replays it once', async () => {
    const n = deliverTurnSize * 2 + 1;
    const watchers = await Promise.all(Array.from({ length: n }, () => cache.watch(prefix, { sendInitialEvents: false, allowWatchBookmarks: true, bookmarkIntervalMs: 5 })));
    const d = await cache.create(key('d'), obj('d'));
    // Registered from before d while d may still be on its way to the others.
    const late = await cache.watch(prefix, { resourceVersion: String(Number(d.metadata!.resourceVersion) - 1) });
    const e = await cache.create(key('e'), obj('e'));
    for (const w of [...watchers, late]) {
      const names: string[] = [];
      while (names.length < 2) {
        const r = await next(w);
        if (r.value?.type === 'BOOKMARK') {
          // A bookmark never goes ahead of an event still on its way.
          const at = Number(r.value.object.metadata?.resourceVersion);
          if (at >= Number(d.metadata!.resourceVersion)) expect(names).toContain('d');
          if (at >= Number(e.metadata!.resourceVersion)) expect(names).toContain('e');
          continue;
        }
        expect(r.value?.type).toBe('ADDED');
        names.push(r.value!.object.metadata!.name!);
      }
      expect(names).toEqual(['d', 'e']);
    }
    expect(cache.watchEventDrops()).toEqual({});
    for (const w of [...watchers, late]) w.stop();
  });

  it('serves lists at "", "0" and NotOlderThan and gets at "0" from memory', async () => {
    const before = backend.lists;
    const l1 = await cache.list(prefix);
    const l2 = await cache.list(prefix, { resourceVersion: '0' });
    const l3 = await cache.list(prefix, { resourceVersion: l1.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
    expect(l1.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(l2.items).toEqual(l1.items);
    expect(l3.items).toEqual(l1.items);
    const g = await cache.get(key('a'), { resourceVersion: '0' });
    expect(g.spec).toEqual({ n: 'a' });
    expect(backend.lists).toBe(before);
    expect(backend.gets).toBe(0);
    // Readers own the top level and metadata; nested values are shared and frozen, so they
    // cannot change the cache through the objects they got.
    l1.items[0].kind = 'Changed';
    l1.items[0].metadata!.labels = { x: 'y' };
    l1.items[0].metadata!.resourceVersion = '1';
    expect(() => {
      (l1.items[0].spec as { n: string }).n = 'changed';
    }).toThrow(TypeError);
    const again = await cache.get(key('a'), { resourceVersion: '0' });
    expect(again.spec).toEqual({ n: 'a' });
    expect(again.kind).toBeUndefined();
    expect(again.metadata?.labels).toBeUndefined();
    expect(again.metadata?.resourceVersion).toBe(l2.items[0].metadata?.resourceVersion);
    // A quorum get goes to the backend.
    await cache.get(key('a'));
    expect(backend.gets).toBe(1);
    // A bad key or resourceVersion rejects (the get returns a promise, it does not throw), and
    // reaches no backend.
    const badKey = cache.get('no-slash');
    await expect(badKey).rejects.toThrow('invalid storage key');
    const badRv = cache.get(key('a'), { resourceVersion: 'x' });
    await expect(badRv).rejects.toMatchObject({ code: 400 });
    expect(backend.gets).toBe(1);
  });

  it('hands a read-only list its own frozen objects, and every other list copies', async () => {
    const shared = await cache.list(prefix, { readOnly: true });
    const sharedAgain = await cache.list(prefix, { readOnly: true, resourceVersion: '0' });
    const copied = await cache.list(prefix);
    expect(shared.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(shared.items).toEqual(copied.items);
    expect(shared.resourceVersion).toBe(copied.resourceVersion);
    // The same objects each time (the server keys their encodings by identity), frozen whole.
    for (let i = 0; i < shared.items.length; i++) {
      expect(sharedAgain.items[i]).toBe(shared.items[i]);
      expect(Object.isFrozen(shared.items[i])).toBe(true);
      expect(Object.isFrozen(shared.items[i].metadata)).toBe(true);
      expect(copied.items[i]).not.toBe(shared.items[i]);
      expect(Object.isFrozen(copied.items[i])).toBe(false);
      expect(Object.isFrozen(copied.items[i].metadata)).toBe(false);
    }
    expect(() => {
      shared.items[0].metadata!.resourceVersion = '1';
    }).toThrow(TypeError);
    // A caller that changes its items still may, and the cache does not see it.
    copied.items[0].kind = 'Changed';
    copied.items[0].metadata!.resourceVersion = '1';
    const after = await cache.list(prefix, { readOnly: true });
    expect(after.items[0]).toBe(shared.items[0]);
    expect(after.items[0].kind).toBeUndefined();
    expect(after.items[0].metadata?.resourceVersion).toBe(shared.items[0].metadata?.resourceVersion);
    // A changed object is a new frozen object; the others stay the same ones.
    await cache.guaranteedUpdate(key('b'), (cur) => ({ ...cur, spec: { n: 'b2' } }));
    const updated = await cache.list(prefix, { readOnly: true });
    expect(updated.items[0]).toBe(shared.items[0]);
    expect(updated.items[1]).not.toBe(shared.items[1]);
    expect(updated.items[1].spec).toEqual({ n: 'b2' });
    // Selection and pagination are the same as for a copying list.
    const page = await cache.list(prefix, { readOnly: true, limit: 2, predicate: (o) => o.metadata?.name !== 'a' });
    expect(page.items.map((o) => o.metadata?.name)).toEqual(['b', 'c']);
    expect(page.items[1]).toBe(shared.items[2]);
    const first = await cache.list(prefix, { readOnly: true, limit: 1 });
    const copiedFirst = await cache.list(prefix, { limit: 1 });
    expect(first.continue).toBe(copiedFirst.continue);
    expect(first.remainingItemCount).toBe(2);
  });

  it('hands out a first page whose continue token the backend serves at the same snapshot', async () => {
    const first = await cache.list(prefix, { limit: 2 });
    expect(first.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    expect(first.remainingItemCount).toBe(1);
    await cache.delete(key('c'));
    const rest = await cache.list(prefix, { limit: 2, continue: first.continue });
    expect(rest.items.map((o) => o.metadata?.name)).toEqual(['c']);
    expect(rest.resourceVersion).toBe(first.resourceVersion);
  });

  it('answers 410 for a watch older than its event window', async () => {
    const start = await cache.currentRevision();
    for (let i = 0; i < 8; i++) await cache.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { i } }));
    await cache.list(prefix); // catch up
    await expect(cache.watch(prefix, { resourceVersion: String(start) })).rejects.toMatchObject({
      code: 410,
      reason: 'Expired',
      message: expect.stringMatching(new RegExp(`^too old resource version: ${start} \\(\\d+\\)$`)),
    });
    const recent = String((await cache.currentRevision()) - 2);
    const w = await cache.watch(prefix, { resourceVersion: recent });
    expect((await next(w)).value?.type).toBe('MODIFIED');
    w.stop();
  });

  it('bounds its event window by bytes too, and reports the window and the read cache', async () => {
    await cache.close();
    backend = new CountingBackend();
    await backend.create(key('big'), obj('big'));
    cache = await WatchCache.open(backend, { capacity: 10_000, capacityBytes: 250_000 });
    const start = await cache.currentRevision();
    // Ten updates of a ~100 kB object: the window keeps the last two (a count bound alone kept all).
    for (let i = 0; i < 10; i++) {
      await cache.guaranteedUpdate(key('big'), (c) => ({ ...c, spec: { i, blob: 'x'.repeat(100_000) } }));
    }
    await cache.list(prefix); // catch up
    const window = cache.memoryStats().watchCacheWindow!;
    expect(window).toMatchObject({ events: 2, maxEvents: 10_000, maxBytes: 250_000 });
    expect(window.bytes).toBeGreaterThan(200_000);
    expect(window.bytes).toBeLessThanOrEqual(250_000);
    await expect(cache.watch(prefix, { resourceVersion: String(start) })).rejects.toMatchObject({ code: 410 });
    const w = await cache.watch(prefix, { resourceVersion: String((await cache.currentRevision()) - 2) });
    expect((await next(w)).value?.type).toBe('MODIFIED');
    w.stop();
    await cache.get(key('big'));
    expect(cache.memoryStats().readCache).toMatchObject({ objects: 1, maxObjects: 1024, maxBytes: 32 * 1024 * 1024 });
  });

  it('closes a watcher whose queued events pass the byte bound', async () => {
    const w = await cache.watch(prefix, { sendInitialEvents: false, maxQueuedBytes: 150_000 });
    for (let i = 0; i < 3; i++) await cache.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { i, blob: 'x'.repeat(60_000) } }));
    const got: WatchEvent[] = [];
    for await (const e of w) got.push(e);
    expect(got.map((e) => e.type)).toEqual(['ERROR']);
    expect(got[0].object).toMatchObject({ code: 410, reason: 'Expired', message: expect.stringMatching(/^watch closed: the client fell behind by 2 events \(\d+ bytes\)/) });
  });

  it('waits for a newer revision, then answers 504 Too large resource version', async () => {
    const cur = await cache.currentRevision();
    await expect(cache.get(key('a'), { resourceVersion: String(cur + 5) })).rejects.toMatchObject({ code: 504, reason: 'Timeout' });
    const pending = cache.get(key('a'), { resourceVersion: String(cur + 1) });
    await backend.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { late: true } }));
    expect((await pending).spec).toEqual({ late: true });
  });

  it('closes a watcher that falls behind with an ERROR event, not unbounded memory', async () => {
    await cache.close();
    backend = new CountingBackend();
    cache = await WatchCache.open(backend, { maxQueuedEvents: 3 });
    const w = await cache.watch(prefix, { sendInitialEvents: false });
    for (let i = 0; i < 6; i++) await cache.create(key(`x${i}`), obj(`x${i}`));
    const got: WatchEvent[] = [];
    for await (const e of w) got.push(e);
    expect(got.map((e) => e.type)).toEqual(['ERROR']);
    expect(got[0].object).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('reloads after its backend watch breaks, closing its watchers so they resume', async () => {
    const w = await cache.watch(prefix, { sendInitialEvents: false });
    const upstream = backend.open[0] as Watch & { fail(s: unknown): void };
    upstream.fail({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
    expect((await next(w)).done).toBe(true);
    await cache.create(key('z'), obj('z'));
    const deadline = Date.now() + 15_000;
    while (backend.watchCalls < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await cache.synced();
    expect(backend.watchCalls).toBe(2);
    const l = await cache.list(prefix, { resourceVersion: '0' });
    expect(l.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'z']);
    expect(await cache.ready()).toBe(true);
  });

  it('lists, counts, pages and starts watches as the backend does, after any creates, updates and deletes', async () => {
    // Keys in two collections whose prefixes are prefixes of each other's names, so a list's
    // range ends where the next collection begins; names sort apart from insertion order.
    const collections = ['/g/a', '/g/ab'];
    const names = ['x', 'a', 'm', 'b0', 'zz', 'a-1'];
    const op = fc.record({
      coll: fc.constantFrom(...collections),
      name: fc.constantFrom(...names),
      kind: fc.constantFrom('put', 'put', 'delete'),
      label: fc.constantFrom('on', 'off'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.integer({ min: 1, max: 4 }), async (ops, limit) => {
        const store = new MemoryStorage();
        const watched = await WatchCache.open(store, { freshnessTimeoutMs: 1000 });
        try {
          for (const o of ops) {
            const k = `${o.coll}/${o.name}`;
            const exists = await store.get(k).then(() => true, () => false);
            const value = { metadata: { name: o.name, labels: { l: o.label } }, spec: { n: o.name } };
            if (o.kind === 'delete') {
              if (exists) await watched.delete(k);
            } else if (exists) {
              await watched.guaranteedUpdate(k, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { l: o.label } } }));
            } else {
              await watched.create(k, value);
            }
          }
          const selected: Predicate = (x) => x.metadata?.labels?.['l'] === 'on';
          for (const coll of collections) {
            for (const opts of [{}, { limit }, { predicate: selected }, { predicate: selected, limit }] as ListOptions[]) {
              // "" reads the cache once it holds the backend's current revision.
              const fromCache = await watched.list(coll, { ...opts, readOnly: true });
              const fromBackend = await store.list(coll, { ...opts, resourceVersion: fromCache.resourceVersion, resourceVersionMatch: 'Exact' });
              expect(fromCache.items).toEqual(fromBackend.items);
              expect(fromCache.continue).toBe(fromBackend.continue);
              expect(fromCache.remainingItemCount).toBe(fromBackend.remainingItemCount);
            }
            expect(await watched.count(coll)).toBe(await store.count(coll));
            const w = await watched.watch(coll, { resourceVersion: '0' });
            const initial: string[] = [];
            const expected = (await store.list(coll)).items.map((x) => x.metadata!.name!);
            for (let i = 0; i < expected.length; i++) initial.push((await next(w)).value.object.metadata.name);
            w.stop();
            expect(initial).toEqual(expected);
          }
        } finally {
          await watched.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
