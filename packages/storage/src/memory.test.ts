import { newServiceUnavailable } from '@plat/api-model';
import type { TxnResult } from './kv.js';
import { MemoryKv } from './memory-kv.js';
import { MemoryStorage, MvccStorage, openStorage } from './index.js';
import { runStorageContract } from './testing.js';

runStorageContract('memory', { open: () => openStorage({ backend: 'memory' }) });
runStorageContract('memory + watch cache', { open: () => openStorage({ backend: 'memory' }, { watchCache: true, watchCacheOptions: { freshnessTimeoutMs: 250 } }) });

describe('memory storage', () => {
  it('closes a watcher that falls too far behind with an ERROR event', async () => {
    const s = new MemoryStorage({ maxQueuedEvents: 5 });
    const w = await s.watch('/g/r', { sendInitialEvents: false });
    for (let i = 0; i < 7; i++) await s.create(`/g/r/o${i}`, { metadata: { name: `o${i}` } });
    const got = [];
    for await (const e of w) got.push(e);
    expect(got.map((e) => e.type)).toEqual(['ERROR']);
    expect(got[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    await s.close();
  });

  it('compacts periodically so history does not grow without bound', async () => {
    const s = new MemoryStorage({ compactIntervalMs: 40 });
    try {
      const a = await s.create('/g/r/a', { metadata: { name: 'a' } });
      for (let i = 0; i < 5; i++) await s.guaranteedUpdate('/g/r/a', (c) => ({ ...c, spec: { i } }));
      const deadline = Date.now() + 15_000;
      while ((await s.compactedRevision()) < Number(a.metadata?.resourceVersion) + 5 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await expect(s.watch('/g/r', { resourceVersion: a.metadata?.resourceVersion })).rejects.toMatchObject({ code: 410 });
      expect((await s.get('/g/r/a')).spec).toEqual({ i: 4 });
    } finally {
      await s.close();
    }
  });

  it('forgets everything on close and refuses later calls', async () => {
    const s = new MemoryStorage();
    await s.create('/g/r/a', { metadata: { name: 'a' } });
    const w = await s.watch('/g/r', { sendInitialEvents: false });
    await s.close();
    const next = await w[Symbol.asyncIterator]().next();
    expect(next.done).toBe(true);
    expect(await s.ready()).toBe(false);
    await expect(s.get('/g/r/a')).rejects.toThrow('storage is closed');
  });

  it('keeps at most readCacheSize decoded objects, and decodes every get afresh with 0', async () => {
    const small = new MemoryStorage({ readCacheSize: 2 });
    const none = new MemoryStorage({ readCacheSize: 0 });
    try {
      for (const s of [small, none]) {
        for (const n of ['a', 'b', 'c']) await s.create(`/g/r/${n}`, { metadata: { name: n } });
      }
      const a = await small.get('/g/r/a');
      expect(await small.get('/g/r/a')).toBe(a);
      await small.get('/g/r/b');
      await small.get('/g/r/c'); // evicts a, the oldest
      const a2 = await small.get('/g/r/a');
      expect(a2).not.toBe(a);
      expect(a2).toEqual(a);
      const n1 = await none.get('/g/r/a');
      const n2 = await none.get('/g/r/a');
      expect(n2).not.toBe(n1);
      expect(Object.isFrozen(n1)).toBe(false);
    } finally {
      await small.close();
      await none.close();
    }
  });

  it('answers a repeated get from the read cache as its most recent entry, and a changed or deleted key afresh', async () => {
    const small = new MemoryStorage({ readCacheSize: 2 });
    try {
      for (const n of ['a', 'b', 'c']) await small.create(`/g/r/${n}`, { metadata: { name: n } });
      const a = await small.get('/g/r/a');
      expect(await small.get('/g/r/a')).toBe(a);
      expect(await small.get('/g/r/a')).toBe(a); // the get asked last, again
      const b = await small.get('/g/r/b');
      expect(await small.get('/g/r/a')).toBe(a); // a is the most recently used again, b the least
      await small.get('/g/r/c'); // evicts b
      expect(await small.get('/g/r/a')).toBe(a);
      const b2 = await small.get('/g/r/b'); // evicts c
      expect(b2).not.toBe(b);
      expect(b2).toEqual(b);
      expect(await small.get('/g/r/a')).toBe(a);
      await small.guaranteedUpdate('/g/r/a', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } }));
      const a2 = await small.get('/g/r/a');
      expect(a2).not.toBe(a);
      expect(a2.metadata?.labels).toEqual({ x: 'y' });
      expect(await small.get('/g/r/a')).toBe(a2);
      await small.delete('/g/r/a');
      await expect(small.get('/g/r/a')).rejects.toMatchObject({ code: 404 });
      await expect(small.get('/g/r/a')).rejects.toMatchObject({ code: 404 });
    } finally {
      await small.close();
    }
  });

  it('keeps at most readCacheBytes of decoded objects, and no object larger than that', async () => {
    const s = new MemoryStorage({ readCacheBytes: 25_000 });
    try {
      const blob = (n: number) => ({ metadata: { name: `o${n}` }, spec: { blob: 'x'.repeat(10_000) } });
      for (let i = 0; i < 4; i++) await s.create(`/g/r/o${i}`, blob(i));
      await s.create('/g/r/huge', { metadata: { name: 'huge' }, spec: { blob: 'x'.repeat(30_000) } });
      for (let i = 0; i < 4; i++) await s.get(`/g/r/o${i}`);
      expect(s.memoryStats().readCache).toMatchObject({ objects: 2, maxBytes: 25_000 });
      expect(s.memoryStats().readCache!.bytes).toBeLessThanOrEqual(25_000);
      const huge = await s.get('/g/r/huge');
      expect(await s.get('/g/r/huge')).not.toBe(huge);
      const o3 = await s.get('/g/r/o3');
      expect(await s.get('/g/r/o3')).toBe(o3);
    } finally {
      await s.close();
    }
  });
});

describe('MvccStorage get: backend failures', () => {
  // A memory backend whose reads fail as a broken backend's would (a bug, a lost file).
  class FailingKv extends MemoryKv {
    failing: unknown;
    override async get(key: string, revision?: number): ReturnType<MemoryKv['get']> {
      if (this.failing !== undefined) throw this.failing;
      return super.get(key, revision);
    }

    // The check of a cached object's revision, answered without awaiting (MvccStorage.get).
    override latestModRevision(key: string): number {
      if (this.failing !== undefined) throw this.failing;
      return super.latestModRevision(key);
    }
  }

  it('answers a failed read as a 500 InternalError, and a missing key as 404', async () => {
    const kv = new FailingKv();
    const s = new MvccStorage(kv);
    try {
      await s.create('/g/r/a', { metadata: { name: 'a' } });
      expect((await s.get('/g/r/a')).metadata?.name).toBe('a');
      kv.failing = new Error('disk gone');
      await expect(s.get('/g/r/a')).rejects.toMatchObject({ code: 500, reason: 'InternalError' });
      kv.failing = newServiceUnavailable('backend unreachable');
      await expect(s.get('/g/r/a')).rejects.toMatchObject({ code: 503 });
      kv.failing = undefined;
      await expect(s.get('/g/r/b')).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    } finally {
      await s.close();
    }
    await expect(s.get('/g/r/a')).rejects.toThrow('storage is closed');
  });
});

describe('MemoryKv.latestModRevision', () => {
  it("answers a live key's newest revision, and 0 for a missing or deleted key", async () => {
    const kv = new MemoryKv({ compactIntervalMs: 0 });
    expect(kv.latestModRevision('/g/r/a')).toBe(0);
    const revisionOf = (res: TxnResult): number => {
      if (!res.succeeded) throw new Error('the write failed');
      return res.revision;
    };
    const created = revisionOf(await kv.create('/g/r/a', '{}'));
    expect(kv.latestModRevision('/g/r/a')).toBe(created);
    const updated = revisionOf(await kv.update('/g/r/a', '{"x":1}', created));
    expect(kv.latestModRevision('/g/r/a')).toBe(updated);
    expect((await kv.get('/g/r/a')).record?.modRevision).toBe(updated);
    revisionOf(await kv.delete('/g/r/a', updated));
    expect(kv.latestModRevision('/g/r/a')).toBe(0);
  });
});

describe('MvccStorage get of a cached object', () => {
  it('answers the change or the delete made since it was cached', async () => {
    const s = new MemoryStorage();
    try {
      await s.create('/g/r/a', { metadata: { name: 'a' }, spec: { v: 1 } });
      const first = await s.get('/g/r/a');
      expect(await s.get('/g/r/a')).toBe(first);
      await s.guaranteedUpdate('/g/r/a', (cur) => ({ ...cur, spec: { v: 2 } }));
      expect((await s.get('/g/r/a')).spec).toEqual({ v: 2 });
      await s.delete('/g/r/a');
      await expect(s.get('/g/r/a')).rejects.toMatchObject({ code: 404 });
    } finally {
      await s.close();
    }
  });
});
