import { isStatusError } from '@plat/api-model';
import type { StoredObject, Watch, WatchEvent } from './index.js';
import { Etcd3Storage, openStorage } from './index.js';
import { TcpProxy, TestEtcd, TestEtcdCluster, etcdBinary, hasEtcd } from './testing.js';

if (!hasEtcd) console.warn(`etcd3 fault tests SKIPPED: ${etcdBinary} is missing (install the etcd-server package)`);
const describeEtcd = hasEtcd ? describe : describe.skip;

const etcd = new TestEtcd();
let prefixes = 0;
const freshPrefix = () => `/plat-fault-${++prefixes}`;
const dir = '/certificates.plat.io/clustertrustbundles';
const key = (n: string) => `${dir}/${n}`;
const obj = (n: string, spec: Record<string, unknown> = {}) => ({ metadata: { name: n }, spec: { n, ...spec } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** etcd's own count of live watchers (all prefixes), from its /metrics. */
async function etcdWatchers(): Promise<number> {
  const text = await (await fetch(`${etcd.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('etcd_debugging_mvcc_watcher_total '));
  if (!line) throw new Error('etcd does not report etcd_debugging_mvcc_watcher_total');
  return Number(line.split(' ')[1]);
}

/** Waits until `cond` holds (checked every 100 ms) or fails after `ms`. */
async function eventually(cond: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(100);
  }
}

/** Collects a watch's events in the background. */
function collect(w: Watch): WatchEvent[] {
  const events: WatchEvent[] = [];
  void (async () => {
    for await (const ev of w) events.push(ev);
  })();
  return events;
}

const rv = (ev: WatchEvent) => Number((ev.object as StoredObject).metadata?.resourceVersion);

/** Creates objects until one succeeds (the client may be leaving its circuit breaker). */
async function createEventually(s: Pick<Etcd3Storage, 'create'>, name: string): Promise<StoredObject> {
  for (let i = 0; ; i++) {
    try {
      return await s.create(key(name), obj(name));
    } catch (err) {
      if (i > 80) throw err;
      await sleep(250);
    }
  }
}

describeEtcd('etcd3 under faults', () => {
  beforeAll(async () => {
    await etcd.start();
  }, 20_000);
  afterAll(async () => {
    await etcd.destroy();
  });

  describe('a broken watch stream', () => {
    it('reconnects once after etcd is killed, so etcd holds one watcher and each change arrives once, in order', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), requestTimeoutMs: 1000, progressIntervalMs: 200 });
      try {
        const first = await s.create(key('a'), obj('a'));
        const w = await s.watch(dir, { resourceVersion: first.metadata?.resourceVersion });
        const events = collect(w);
        await s.create(key('b'), obj('b'));
        await eventually(() => events.length === 1);
        for (let round = 0; round < 3; round++) {
          await etcd.stop('SIGKILL');
          await sleep(600);
          await etcd.start();
          await createEventually(s, `r${round}`);
        }
        await s.delete(key('b'));
        await eventually(() => events.length === 5);
        // etcd restarted with no watchers: every one it has now is a live stream of ours.
        await eventually(async () => (await etcdWatchers()) === 1);
        await sleep(1000);
        expect(await etcdWatchers()).toBe(1);
        expect(events.map((e) => `${e.type} ${(e.object as StoredObject).metadata?.name}`)).toEqual([
          'ADDED b',
          'ADDED r0',
          'ADDED r1',
          'ADDED r2',
          'DELETED b',
        ]);
        for (let i = 1; i < events.length; i++) expect(rv(events[i])).toBeGreaterThan(rv(events[i - 1]));
        expect(s.watchEventDrops()).toEqual({});
        w.stop();
      } finally {
        await s.close();
      }
    }, 90_000);

    it('gives up a reconnect that etcd does not answer (frozen member) and keeps one watcher once it answers again', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), requestTimeoutMs: 800, progressIntervalMs: 0 });
      try {
        const first = await s.create(key('a'), obj('a'));
        const w = await s.watch(dir, { resourceVersion: first.metadata?.resourceVersion });
        const events = collect(w);
        await etcd.stop('SIGKILL');
        await etcd.start();
        // Frozen while the watch reconnects: its create requests go unanswered and time out.
        await etcd.pause();
        await sleep(2500);
        etcd.resume();
        const made = await createEventually(s, 'after');
        await eventually(() => events.length === 1);
        await eventually(async () => (await etcdWatchers()) === 1);
        await sleep(1000);
        expect(await etcdWatchers()).toBe(1);
        expect(events.map((e) => e.object)).toEqual([made]);
        expect(s.watchEventDrops()).toEqual({});
        w.stop();
        await eventually(async () => (await etcdWatchers()) === 0);
      } finally {
        etcd.resume();
        await s.close();
      }
    }, 90_000);
  });

  describe('a write whose answer is lost', () => {
    it('is answered 500 "outcome unknown", never 409, and is not sent a second time', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), requestTimeoutMs: 1000 });
      try {
        await s.create(key('c'), obj('c', { count: 0 }));
        let started = 0;
        const answer = await s
          .guaranteedUpdate(key('c'), async (cur) => {
            // Frozen after the read: the transaction goes into an etcd that does not answer.
            await etcd.pause();
            started = Date.now();
            return { ...cur, spec: { ...(cur.spec as object), count: ((cur.spec as { count: number }).count ?? 0) + 1 } };
          })
          .catch((e: unknown) => e);
        const took = Date.now() - started;
        etcd.resume();
        expect(isStatusError(answer) && answer.code).toBe(500);
        expect(isStatusError(answer) && answer.status.reason).toBe('InternalError');
        expect((answer as Error).message).toContain('the outcome of the write is unknown');
        // Bounded: the write's deadline plus the read back's (2 s; 8 s leaves a loaded machine room
        // and is still below etcd3's own 10 s default, which would mean our deadline was not applied).
        expect(took).toBeLessThan(8000);
        // Whether etcd applied it once it woke is not ours to know; it applied it at most once.
        await sleep(500);
        expect(((await s.get(key('c'))).spec as { count: number }).count).toBeLessThanOrEqual(1);
      } finally {
        etcd.resume();
        await s.close();
      }
    }, 30_000);

    it('recognises its own create whose answer was lost, and answers it as created', async () => {
      const proxy = new TcpProxy(etcd.clientPort);
      await proxy.start();
      const s = new Etcd3Storage({ servers: [proxy.url], prefix: freshPrefix(), requestTimeoutMs: 1000 });
      try {
        await s.create(key('warm'), obj('warm'));
        // etcd applies the create; its answer is held past the deadline, then the read back's
        // answer comes through.
        proxy.hold();
        const release = setTimeout(() => proxy.release(), 1300);
        const answer = await s.create(key('d'), obj('d'));
        clearTimeout(release);
        proxy.release();
        expect(answer).toEqual(await s.get(key('d')));
      } finally {
        proxy.release();
        await s.close();
        await proxy.close();
      }
    }, 30_000);

    it('answers a lost update as unknown even when the stored bytes are the ones it wrote (another writer may have written them)', async () => {
      const proxy = new TcpProxy(etcd.clientPort);
      await proxy.start();
      const s = new Etcd3Storage({ servers: [proxy.url], prefix: freshPrefix(), requestTimeoutMs: 1000 });
      try {
        await s.create(key('e'), obj('e', { count: 0 }));
        const answer = await s
          .guaranteedUpdate(key('e'), (cur) => {
            proxy.hold();
            setTimeout(() => proxy.release(), 1300);
            return { ...cur, spec: { n: 'e', count: 1 } };
          })
          .catch((e: unknown) => e);
        expect(isStatusError(answer) && answer.code).toBe(500);
        expect(((await s.get(key('e'))).spec as { count: number }).count).toBe(1);
      } finally {
        proxy.release();
        await s.close();
        await proxy.close();
      }
    }, 30_000);
  });
});

describeEtcd('etcd3 on a three-member cluster that loses quorum for longer than its timeouts', () => {
  const cluster = new TestEtcdCluster(3);
  beforeAll(async () => {
    await cluster.start();
  }, 40_000);
  afterAll(async () => {
    await cluster.destroy();
  });

  it('answers writes with a 5xx Status within the request timeout, serves cached reads, fails ready(), and recovers without a restart', async () => {
    const s = await openStorage(
      { backend: 'etcd3', servers: cluster.urls, prefix: freshPrefix() },
      { watchCache: true, watchCacheOptions: { freshnessTimeoutMs: 500 } },
    );
    // openStorage's defaults are the server's: a 10 s etcd request timeout.
    try {
      const before = await s.create(key('q'), obj('q'));
      const w = await s.watch(dir, { resourceVersion: before.metadata?.resourceVersion });
      const events = collect(w);
      expect(await s.ready()).toBe(true);
      await cluster.kill(1);
      await cluster.kill(2);
      const started = Date.now();
      const failed = await Promise.all([
        s.create(key('lost'), obj('lost')).catch((e: unknown) => e),
        s.guaranteedUpdate(key('q'), (cur) => ({ ...cur, spec: { n: 'changed' } })).catch((e: unknown) => e),
      ]);
      const took = Date.now() - started;
      for (const f of failed) {
        expect(isStatusError(f)).toBe(true);
        expect((f as { code: number }).code).toBeGreaterThanOrEqual(500);
        expect((f as { code: number }).code).not.toBe(409);
      }
      // kube-apiserver's default --request-timeout is 60 s: well inside it.
      expect(took).toBeLessThan(30_000); // 10 s nominal (the etcd request timeout); room for a loaded machine
      // The watch cache keeps serving resourceVersion="0" reads, as kube's cacher does.
      expect((await s.get(key('q'), { resourceVersion: '0' })).metadata?.name).toBe('q');
      expect((await s.list(dir, { resourceVersion: '0' })).items.map((o) => o.metadata?.name)).toContain('q');
      expect(await s.ready()).toBe(false);
      await cluster.restart(1, false);
      await cluster.restart(2, false);
      await eventually(() => s.ready(), 30_000);
      const after = await createEventually(s, 'after');
      await eventually(() => events.some((e) => (e.object as StoredObject).metadata?.name === 'after'), 20_000);
      for (let i = 1; i < events.length; i++) expect(rv(events[i])).toBeGreaterThan(rv(events[i - 1]));
      expect(new Set(events.map((e) => `${e.type} ${rv(e)}`)).size).toBe(events.length);
      expect(events.at(-1)?.object).toEqual(after);
      expect(s.watchEventDrops?.()).toEqual({});
      w.stop();
    } finally {
      await s.close();
    }
  }, 120_000);
});
