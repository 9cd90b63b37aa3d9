import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStatusError } from '@plat/api-model';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '@plat/x509';
import type { Storage, StoredObject, Watch, WatchEvent } from './index.js';
import { Etcd3Storage, openStorage } from './index.js';
import { TestEtcd, etcdBinary, hasEtcd, runStorageContract } from './testing.js';

if (!hasEtcd) {
  // Debian's etcd-server package provides it; .ci/run installs it.
  console.warn(`etcd3 storage tests SKIPPED: ${etcdBinary} is missing (install the etcd-server package)`);
}
const describeEtcd = hasEtcd ? describe : describe.skip;

const etcd = new TestEtcd();
let prefixes = 0;
const freshPrefix = () => `/plat-test-${++prefixes}`;

describeEtcd('etcd3 backend', () => {
  beforeAll(async () => {
    await etcd.start();
  }, 20_000);
  afterAll(async () => {
    await etcd.destroy();
  });

  runStorageContract('etcd3', { open: () => openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: freshPrefix() }) });
  runStorageContract('etcd3 + watch cache', {
    open: () =>
      openStorage(
        { backend: 'etcd3', servers: [etcd.url], prefix: freshPrefix() },
        { watchCache: true, watchCacheOptions: { freshnessTimeoutMs: 1000 } },
      ),
  });

  const key = (n: string) => `/certificates.plat.io/clustertrustbundles/${n}`;
  const obj = (n: string) => ({ metadata: { name: n }, spec: { n } });

  async function next(w: Watch, ms = 8000): Promise<IteratorResult<WatchEvent>> {
    let t: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        w[Symbol.asyncIterator]().next(),
        new Promise<never>((_, reject) => {
          t = setTimeout(() => reject(new Error('timed out waiting for a watch event')), ms);
        }),
      ]);
    } finally {
      clearTimeout(t);
    }
  }

  describe('several servers on one etcd', () => {
    it('see each other\'s writes through watch, directly and through their watch caches', async () => {
      const prefix = freshPrefix();
      const a = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix });
      const b = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix }, { watchCache: true });
      const stores: Storage[] = [a, b];
      try {
        const wb = await b.watch('/certificates.plat.io/clustertrustbundles', { sendInitialEvents: false });
        const wa = await a.watch('/certificates.plat.io/clustertrustbundles', { sendInitialEvents: false });
        const made = await a.create(key('x'), obj('x'));
        expect((await next(wb)).value?.object).toEqual(made);
        const changed = await b.guaranteedUpdate(key('x'), (c) => ({ ...c, spec: { by: 'b' } }));
        expect((await next(wa)).value?.object).toEqual(made);
        const ev = (await next(wa)).value;
        expect(ev?.type).toBe('MODIFIED');
        expect(ev?.object).toEqual(changed);
        expect((await b.list('/certificates.plat.io/clustertrustbundles')).items).toEqual([changed]);
        wa.stop();
        wb.stop();
      } finally {
        for (const s of stores) await s.close();
      }
    });

    it('keeps different prefixes apart', async () => {
      const a = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix() });
      const b = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix() });
      try {
        await a.create(key('only-a'), obj('only-a'));
        expect(await b.count('/certificates.plat.io/clustertrustbundles')).toBe(0);
        expect(await a.count('/certificates.plat.io/clustertrustbundles')).toBe(1);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe('TLS', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plat-etcd-tls-'));
    const file = (name: string, text: string): string => {
      const p = path.join(dir, name);
      writeFileSync(p, text, { mode: 0o600 });
      return p;
    };
    let tlsEtcd: TestEtcd;
    let ca: string;
    let clientCert: string;
    let clientKey: string;
    beforeAll(async () => {
      const caPair = await createCertificateAuthority({ commonName: 'plat-test-etcd-ca' });
      const serving = await issueServingCertificate(caPair, { commonName: 'etcd', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
      const client = await issueClientCertificate(caPair, { commonName: 'plat-apiserver' });
      ca = file('ca.crt', caPair.certPem);
      clientCert = file('client.crt', client.certPem);
      clientKey = file('client.key', client.keyPem);
      tlsEtcd = new TestEtcd({ certFile: file('etcd.crt', serving.certPem), keyFile: file('etcd.key', serving.keyPem), clientCaFile: ca });
      await tlsEtcd.start();
    }, 30_000);
    afterAll(async () => {
      await tlsEtcd?.destroy();
      rmSync(dir, { recursive: true, force: true });
    });

    it('talks to etcd over mutual TLS with --etcd-cafile, --etcd-certfile and --etcd-keyfile', async () => {
      const s = await openStorage({ backend: 'etcd3', servers: [tlsEtcd.url], caFile: ca, certFile: clientCert, keyFile: clientKey });
      try {
        const w = await s.watch('/certificates.plat.io/clustertrustbundles', { sendInitialEvents: false });
        const made = await s.create(key('tls'), obj('tls'));
        expect(await s.get(key('tls'))).toEqual(made);
        expect((await next(w)).value?.object).toEqual(made);
        w.stop();
      } finally {
        await s.close();
      }
    });

    it('fails at start with 503 without a client certificate', async () => {
      const err = await openStorage({ backend: 'etcd3', servers: [tlsEtcd.url], caFile: ca, dial: { faultHandling: {} } }).catch((e: unknown) => e);
      expect(isStatusError(err, 'ServiceUnavailable')).toBe(true);
    });
  });

  describe('compaction', () => {
    it('compacts periodically to the revision seen one period earlier', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), compactIntervalMs: 150 });
      try {
        const a = await s.create(key('a'), obj('a'));
        await s.guaranteedUpdate(key('a'), (c) => ({ ...c, spec: { v: 2 } }));
        const deadline = Date.now() + 15_000;
        while ((await s.compactedRevision()) <= Number(a.metadata?.resourceVersion) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
        }
        await expect(s.watch('/certificates.plat.io/clustertrustbundles', { resourceVersion: a.metadata?.resourceVersion })).rejects.toMatchObject({ code: 410 });
        expect((await s.get(key('a'))).spec).toEqual({ v: 2 });
      } finally {
        await s.close();
      }
    });
  });

  describe('compaction by another server', () => {
    it('names the compacted revision it learned from etcd in the 410', async () => {
      const prefix = freshPrefix();
      const a = new Etcd3Storage({ servers: [etcd.url], prefix });
      const b = new Etcd3Storage({ servers: [etcd.url], prefix });
      try {
        const first = await a.create(key('a'), obj('a'));
        const second = await a.create(key('b'), obj('b'));
        await a.compact(Number(second.metadata?.resourceVersion));
        await expect(b.watch('/certificates.plat.io/clustertrustbundles', { resourceVersion: first.metadata?.resourceVersion })).rejects.toMatchObject({
          code: 410,
          message: `too old resource version: ${first.metadata?.resourceVersion} (${second.metadata?.resourceVersion})`,
        });
        expect(await b.compactedRevision()).toBe(Number(second.metadata?.resourceVersion));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe('watch progress and consistent reads through the watch cache', () => {
    // etcd before 3.4.31 and 3.5.13 may answer a requested progress notification with a revision
    // whose events are still queued behind it on the stream (etcd-io/etcd#15220, #17507). A cache
    // taking that revision as caught up would serve a list at N without a change made at or below N.
    it('a watch never sends a BOOKMARK ahead of an event it has still to send, however often progress is requested', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), progressIntervalMs: 0 });
      const dir = '/certificates.plat.io/clustertrustbundles';
      const w = await s.watch(dir, { resourceVersion: String(await s.currentRevision()), allowWatchBookmarks: true, bookmarkIntervalMs: 3_600_000 });
      const ahead: string[] = [];
      const reader = (async () => {
        let bookmark = 0;
        for await (const e of w) {
          const rv = Number((e.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion);
          if (e.type === 'BOOKMARK') {
            bookmark = Math.max(bookmark, rv);
          } else if (rv <= bookmark && ahead.length < 5) ahead.push(`${e.type} at ${rv} after a BOOKMARK at ${bookmark}`);
        }
      })();
      const asker = setInterval(() => void s.requestProgress(), 1);
      try {
        await Promise.all(
          Array.from({ length: 16 }, async (_, n) => {
            for (let i = 0; i < 100; i++) await s.create(key(`p${n}-${i}`), obj(`p${n}-${i}`));
          }),
        );
      } finally {
        clearInterval(asker);
        w.stop();
        await reader;
        await s.close();
      }
      expect(ahead).toEqual([]);
    }, 60_000);

    it('answer reads and watches at a revision written under another prefix of the same etcd, which no event of theirs carries', async () => {
      const other = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix() });
      const cached = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: freshPrefix() }, { watchCache: true });
      const dir = '/certificates.plat.io/clustertrustbundles';
      try {
        const mine = await cached.create(key('mine'), obj('mine'));
        const elsewhere = Number((await other.create(key('elsewhere'), obj('elsewhere'))).metadata?.resourceVersion);
        // Each read is answered (by the cache once caught up, or by etcd), never with 504 Too large resource version.
        const list = await cached.list(dir);
        expect(list.items.map((o) => o.metadata?.name)).toEqual(['mine']);
        expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(elsewhere);
        expect((await cached.get(key('mine'), { resourceVersion: String(elsewhere) })).metadata?.resourceVersion).toBe(mine.metadata?.resourceVersion);
        expect((await cached.list(dir, { resourceVersion: String(elsewhere) })).items).toHaveLength(1);
        const w = await cached.watch(dir, { resourceVersion: String(elsewhere) });
        const after = await cached.create(key('after'), obj('after'));
        expect((await next(w)).value?.object).toEqual(after);
        w.stop();
      } finally {
        await cached.close();
        await other.close();
      }
    }, 30_000);

    it('hold every write acknowledged before them and exactly etcd\'s state at their resourceVersion, under concurrent writes', async () => {
      const prefix = freshPrefix();
      const direct = new Etcd3Storage({ servers: [etcd.url], prefix });
      const cached = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix }, { watchCache: true, watchCacheOptions: { freshnessTimeoutMs: 1000 } });
      const dir = '/certificates.plat.io/clustertrustbundles';
      const writers = 12;
      // The revision of each writer's last acknowledged write (each writer updates its own object).
      const acked: number[] = [];
      for (let w = 0; w < writers; w++) acked.push(Number((await direct.create(key(`w${w}`), obj(`w${w}`))).metadata?.resourceVersion));
      let stop = false;
      const writing = acked.map(async (_, w) => {
        for (let i = 0; !stop; i++) {
          const done = await direct.guaranteedUpdate(key(`w${w}`), (cur) => ({ ...cur, spec: { i } }));
          acked[w] = Number(done.metadata?.resourceVersion);
        }
      });
      // Progress asked for as often as a busy server's reads and watches may ask.
      const asker = setInterval(() => void cached.requestProgress?.(), 1);
      const problems: string[] = [];
      const at = (items: readonly StoredObject[]) => items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).join(' ');
      try {
        const until = Date.now() + 25_000;
        for (let round = 0; round < 400 && problems.length < 3 && Date.now() < until; round++) {
          const before = [...acked];
          const list = await cached.list(dir);
          const stale = list.items.filter((o) => Number(o.metadata?.resourceVersion) < before[Number(o.metadata?.name?.slice(1))]!);
          if (stale.length) problems.push(`list at ${list.resourceVersion} holds ${at(stale)}, older than writes acknowledged before it`);
          const exact = await direct.list(dir, { resourceVersion: list.resourceVersion, resourceVersionMatch: 'Exact' });
          if (at(exact.items) !== at(list.items)) problems.push(`list at ${list.resourceVersion}: ${at(list.items)}; etcd there: ${at(exact.items)}`);
        }
      } finally {
        clearInterval(asker);
        stop = true;
        await Promise.all(writing);
        await cached.close();
        await direct.close();
      }
      expect(problems).toEqual([]);
    }, 60_000);
  });

  describe('cancellation', () => {
    it('cancels a get and a list in flight when their signal aborts, while etcd hangs', async () => {
      const s = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: freshPrefix() });
      try {
        await s.create(key('held'), obj('held'));
        await etcd.pause();
        try {
          for (const read of [(signal: AbortSignal) => s.get(key('held'), { signal }), (signal: AbortSignal) => s.list('/certificates.plat.io/clustertrustbundles', { signal })]) {
            const ac = new AbortController();
            const started = Date.now();
            const outcome = read(ac.signal).then(
              () => 'answered',
              (err: unknown) => err,
            );
            setTimeout(() => ac.abort(new Error('client went away')), 200);
            // Before etcd3's own 10 s call deadline: the call was cancelled, not timed out (8 s, not
            // less, leaves a loaded machine room).
            expect(await outcome).toEqual(new Error('client went away'));
            expect(Date.now() - started).toBeLessThan(8000);
          }
        } finally {
          etcd.resume();
        }
        // The connection survived the cancelled calls.
        expect((await s.get(key('held'))).metadata?.name).toBe('held');
      } finally {
        await s.close();
      }
    }, 30_000);
  });

  describe('etcd restart', () => {
    it('answers 503 while etcd is down and resumes the watch from its last revision afterwards', async () => {
      const s = new Etcd3Storage({ servers: [etcd.url], prefix: freshPrefix(), requestTimeoutMs: 2000 });
      const cached = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: freshPrefix() }, { watchCache: true });
      try {
        const before = await s.create(key('before'), obj('before'));
        const w = await s.watch('/certificates.plat.io/clustertrustbundles', { resourceVersion: before.metadata?.resourceVersion });
        const wc = await cached.watch('/certificates.plat.io/clustertrustbundles', { sendInitialEvents: false });
        await etcd.stop('SIGKILL');
        const down = await s.get(key('before')).catch((e: unknown) => e);
        expect(isStatusError(down, 'ServiceUnavailable')).toBe(true);
        expect(await s.ready()).toBe(false);
        await etcd.start();
        // The client may need a moment to leave its circuit breaker.
        let after;
        for (let i = 0; i < 60 && !after; i++) {
          after = await s.create(key('after'), obj('after')).catch(async () => {
            await new Promise((r) => setTimeout(r, 250));
            return undefined;
          });
        }
        expect(after).toBeDefined();
        const e = (await next(w, 15_000)).value;
        expect(e?.type).toBe('ADDED');
        expect(e?.object).toEqual(after);
        w.stop();
        // The cache either resumed (its watcher sees the new object) or closed the watcher
        // cleanly so the client re-establishes it; either way the cache serves the new state.
        const cachedAfter = await cached.create(key('after'), obj('after'));
        const ce = await next(wc, 15_000);
        if (!ce.done) expect(ce.value?.object).toEqual(cachedAfter);
        const deadline = Date.now() + 15_000;
        let names: unknown[] = [];
        while (Date.now() < deadline && names.length < 1) {
          names = (await cached.list('/certificates.plat.io/clustertrustbundles', { resourceVersion: '0' })).items.map((o) => o.metadata?.name);
          if (names.length < 1) await new Promise((r) => setTimeout(r, 100));
        }
        expect(names).toEqual(['after']);
        wc.stop();
        expect(await s.ready()).toBe(true);
      } finally {
        await s.close();
        await cached.close();
      }
    }, 60_000);
  });
});
