#!/usr/bin/env node
// Benchmark: @plat/storage backends (memory, sqlite, etcd3) and the watch cache.
//
//   npx nx run storage:build && node tools/bench/storage/bench.mjs [--backends memory,sqlite,etcd3] [--quick] [--json]
//
// For each backend it measures creates/second (sequential and 32 concurrent callers), gets/second,
// the time to list 10,000 objects (directly and from the watch cache), and the delivery latency
// of one write to 1,000 watchers. In the same run it times the baselines the targets refer to:
// raw better-sqlite3 inserts of the same rows with the same durability settings (WAL,
// synchronous=FULL, one transaction per row) and raw etcd3 client puts of the same keys and
// values; writes alternate between ours and the baseline in slices so load swings hit both.
// etcd runs as a child process (/usr/bin/etcd) on loopback ports with a temporary data dir.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const storage = await import(path.join(root, 'packages/storage/dist/index.js')).catch((error) => {
  console.error('cannot load packages/storage/dist/index.js; build first: npx nx run storage:build');
  console.error(String(error));
  process.exit(2);
});
const require = createRequire(path.join(root, 'packages/storage/package.json'));
const Database = require('better-sqlite3');
const { Etcd3 } = require('etcd3');

const args = process.argv.slice(2);
const arg = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const quick = args.includes('--quick');
const json = args.includes('--json');
const backends = arg('--backends', 'memory,sqlite,etcd3').split(',');
const etcdBinary = process.env.PLAT_ETCD_BINARY ?? '/usr/bin/etcd';

const N = {
  writes: quick ? 300 : 2000, // per measured write series (split into slices)
  gets: quick ? 2000 : 10000,
  list: 10000,
  watchers: 1000,
  watchWrites: quick ? 5 : 15,
  slices: quick ? 5 : 10,
};
const TARGET = { sqlite: 0.5, etcd3: 0.7, cacheListMs: 50 };

const tmpDirs = [];
function tempDir(tag) {
  const d = mkdtempSync(path.join(os.tmpdir(), `plat-bench-${tag}-`));
  tmpDirs.push(d);
  return d;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const now = () => performance.now();
const round = (x, d = 0) => Number(x.toFixed(d));

/** A ClusterTrustBundle-sized object (~1.3 KB, one CA certificate). */
function bundle(name) {
  return {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, labels: { 'bench.plat.io/run': 'yes' } },
    spec: { signerName: 'example.com/bench', trustBundle: `-----BEGIN CERTIFICATE-----\n${'A'.repeat(1100)}\n-----END CERTIFICATE-----\n` },
  };
}
const key = (prefix, name) => `/certificates.plat.io/${prefix}/${name}`;

/** Runs `count` calls of fn(i) with `concurrency` callers; returns ops/second. */
async function rate(count, concurrency, fn, offset = 0) {
  let next = 0;
  const t0 = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= count) return;
        await fn(offset + i);
      }
    }),
  );
  return count / ((now() - t0) / 1000);
}

/** Alternates slices of ours and the baseline; returns median rates. */
async function paired(count, concurrency, ours, base) {
  const per = Math.ceil(count / N.slices);
  const o = [];
  const b = [];
  for (let s = 0; s < N.slices; s++) {
    o.push(await rate(per, concurrency, ours, s * per));
    if (base) b.push(await rate(per, concurrency, base, s * per));
  }
  return { ours: median(o), base: base ? median(b) : undefined };
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startEtcd() {
  const dataDir = tempDir('etcd');
  const [cp, pp] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${cp}`;
  const peer = `http://127.0.0.1:${pp}`;
  const proc = spawn(etcdBinary, ['--name', 'bench', '--data-dir', dataDir, '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `bench=${peer}`, '--logger', 'zap', '--log-level', 'error',
    '--quota-backend-bytes', String(4 * 1024 ** 3)], { stdio: 'ignore' });
  for (let i = 0; i < 150; i++) {
    try {
      const r = await fetch(`${url}/health`);
      if ((await r.json()).health === 'true') return { url, stop: () => new Promise((res) => { proc.once('exit', res); proc.kill('SIGTERM'); }) };
    } catch {
      // starting
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error('etcd did not start');
}

/** Delivery latency of one write to `watchers` watches: median over writes of the time until the last watcher has it. */
async function watchLatency(store, prefix, watchers) {
  const watches = await Promise.all(Array.from({ length: watchers }, () => store.watch(`/certificates.plat.io/${prefix}`, { sendInitialEvents: false })));
  const iters = watches.map((w) => w[Symbol.asyncIterator]());
  const all = [];
  const firsts = [];
  for (let i = 0; i < N.watchWrites; i++) {
    const t0 = now();
    let first = 0;
    const pending = iters.map((it) => it.next().then(() => {
      if (!first) first = now() - t0;
    }));
    await store.create(key(prefix, `w-${i}`), bundle(`w-${i}`));
    await Promise.all(pending);
    all.push(now() - t0);
    firsts.push(first);
  }
  for (const w of watches) w.stop();
  return { allMs: round(median(all), 1), firstMs: round(median(firsts), 2) };
}

async function listTimes(store, prefix, opts, rounds = 7) {
  const t = [];
  let items = 0;
  await store.list(`/certificates.plat.io/${prefix}`, opts); // warm-up, not timed
  for (let i = 0; i < rounds; i++) {
    const t0 = now();
    const l = await store.list(`/certificates.plat.io/${prefix}`, opts);
    t.push(now() - t0);
    items = l.items.length;
  }
  return { ms: round(median(t), 1), minMs: round(Math.min(...t), 1), items };
}

async function benchBackend(name) {
  const out = { backend: name };
  let store;
  let raw;
  let etcd;
  if (name === 'memory') {
    store = await storage.openStorage({ backend: 'memory' });
  } else if (name === 'sqlite') {
    store = await storage.openStorage({ backend: 'sqlite', dataDir: tempDir('sqlite'), compactIntervalMs: 0 });
    const db = new Database(path.join(tempDir('raw-sqlite'), 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE kv (name TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const ins = db.prepare('INSERT INTO kv (name, value) VALUES (?, ?)');
    raw = {
      put: async (k, v) => ins.run(k, v),
      close: async () => db.close(),
    };
  } else if (name === 'etcd3') {
    if (!existsSync(etcdBinary)) {
      console.error(`etcd3: SKIPPED, ${etcdBinary} is missing (install the etcd-server package)`);
      return undefined;
    }
    etcd = await startEtcd();
    store = await storage.openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: '/bench' });
    const client = new Etcd3({ hosts: [etcd.url] });
    raw = {
      put: async (k, v) => client.put(`/raw${k}`).value(v),
      close: async () => client.close(),
    };
  }
  const value = (i) => JSON.stringify(bundle(`o-${i}`));

  // creates: sequential and 32 concurrent, interleaved with the raw baseline
  const seq = await paired(N.writes, 1, (i) => store.create(key('seq', `o-${i}`), bundle(`o-${i}`)), raw && ((i) => raw.put(key('seq', `o-${i}`), value(i))));
  const conc = await paired(N.writes, 32, (i) => store.create(key('conc', `o-${i}`), bundle(`o-${i}`)), raw && ((i) => raw.put(key('conc', `o-${i}`), value(i))));
  out.createsPerSecSequential = round(seq.ours);
  out.createsPerSec32 = round(conc.ours);
  if (raw) {
    out.rawPutsPerSecSequential = round(seq.base);
    out.rawPutsPerSec32 = round(conc.base);
    out.ratioSequential = round(seq.ours / seq.base, 2);
    out.ratio32 = round(conc.ours / conc.base, 2);
  }

  // gets
  out.getsPerSec = round(await rate(N.gets, 1, (i) => store.get(key('seq', `o-${i % N.writes}`))));
  out.getsPerSec32 = round(await rate(N.gets, 32, (i) => store.get(key('seq', `o-${i % N.writes}`))));

  // list of 10,000 objects
  const t0 = now();
  await rate(N.list, 32, (i) => store.create(key('list', `o-${String(i).padStart(5, '0')}`), bundle(`o-${i}`)));
  out.fill10kSeconds = round((now() - t0) / 1000, 1);
  out.list10kMs = await listTimes(store, 'list', {});
  out.list10kPagesOf500Ms = round(await (async () => {
    const t1 = now();
    let token;
    let n = 0;
    do {
      const page = await store.list('/certificates.plat.io/list', { limit: 500, continue: token });
      n += page.items.length;
      token = page.continue;
    } while (token);
    if (n !== N.list) throw new Error(`paged list returned ${n}`);
    return now() - t1;
  })(), 1);

  // watch cache over the same store
  const cached = new storage.WatchCache(store);
  await cached.synced();
  out.cacheList10kMs = await listTimes(cached, 'list', { resourceVersion: '0' });
  out.cacheList10kConsistentMs = await listTimes(cached, 'list', {});
  out.cacheGetsPerSec = round(await rate(N.gets, 1, (i) => cached.get(key('seq', `o-${i % N.writes}`), { resourceVersion: '0' })));

  // watch delivery to 1,000 watchers
  out.watch1000CacheMs = await watchLatency(cached, 'watch-cached', N.watchers);
  out.watch1000DirectMs = await watchLatency(store, 'watch-direct', N.watchers);

  await cached.close(); // closes the store too
  await raw?.close();
  await etcd?.stop();
  return out;
}

const results = [];
for (const b of backends) {
  const r = await benchBackend(b);
  if (r) results.push(r);
  if (!json && r) {
    console.log(`\n== ${b}`);
    for (const [k, v] of Object.entries(r)) if (k !== 'backend') console.log(`  ${k.padEnd(26)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
}
for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });

const verdicts = [];
for (const r of results) {
  if (r.backend === 'sqlite') verdicts.push(`sqlite creates / raw better-sqlite3 inserts: sequential ${r.ratioSequential}, 32 concurrent ${r.ratio32} (target >= ${TARGET.sqlite})`);
  if (r.backend === 'etcd3') verdicts.push(`etcd3 creates / raw etcd3 puts: sequential ${r.ratioSequential}, 32 concurrent ${r.ratio32} (target >= ${TARGET.etcd3})`);
  verdicts.push(`${r.backend}: watch cache list of 10,000: ${r.cacheList10kMs.ms} ms (target < ${TARGET.cacheListMs} ms)`);
}
if (json) console.log(JSON.stringify({ node: process.version, results }, null, 2));
else console.log(`\n${verdicts.join('\n')}`);
