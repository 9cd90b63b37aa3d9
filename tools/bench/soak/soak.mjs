#!/usr/bin/env node
// Soak benchmark (issue 16): a started apiserver under valid load, hostile bodies and slow clients
// at once, for a fixed time.
//
//   node tools/bench/soak/soak.mjs [--duration 60] [--warmup 30] [--settle 60] [--backend sqlite|memory]
//                                  [--skip name,name] [--json]
//
// It bundles apps/apiserver (lib/apiserver-harness.mjs), starts it on a fresh data dir with a
// token user `soak` (not system:masters, so the in-flight limits apply to it; AlwaysAllow) and low
// in-flight limits (--max-requests-inflight=4, --max-mutating-requests-inflight=2) so that the
// limiter answers 429 while /livez must not, seeds 200 bundles and one of about 985 KiB, then:
//   warm-up (--warmup s, default 30): valid load only, which fills the watch cache window (64 MiB
//     of 985 KiB-bundle updates take about 25 s) and the read cache; "RSS start" is read at its
//     end: the steady state the server must return to once the hostile and slow clients are gone.
//   load (--duration s), all at once:
//     valid: 8 HTTP/1.1 and 2 HTTP/2 workers doing GET, LIST, LIST with a selector, create and
//       delete, merge patch, server-side apply, and label updates of the 985 KiB bundle (one at a
//       time); 5 watchers that read (with bookmarks), re-watching when ended;
//     hostile: 2 workers cycling through hostile-inputs.mjs (deep JSON and YAML, alias bombs,
//       huge PEMs, 100,000 unknown fields, int64 overflow, over-size bodies and headers, bad
//       impersonation, bad query parameters, malformed HTTP on a raw socket);
//     slow: 20 connections dribbling a header line every 2 s, 10 connections that send nothing,
//       and 3 watchers that never read; each replaced when the server closes it.
//   settle (up to --settle s): no load; RSS is sampled until it is back within 20% of its start.
// Throughout: RSS of the server every 250 ms, GET /livez every 250 ms (latency and failures, as
// the token user), and the server process watched for exits.
// It prints requests by kind and status class, 5xx for bad input (must be 0), crashes, RSS
// start/peak/end, /livez worst latency, how long the server took to close slow clients, and
// whether RSS came back within 20% of its start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, seedObjects, startApiServer } from '../lib/apiserver-harness.mjs';
import { bigTrustBundle } from './big-bundle.mjs';
import { hostileInputs } from './hostile-inputs.mjs';

const { flag, has } = benchFlags();
const durationS = Number(flag('duration', '60'));
const warmupS = Number(flag('warmup', '30'));
const settleS = Number(flag('settle', '60'));
const backend = flag('backend', 'sqlite');
const asJson = has('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const token = 'soak-token';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- counters ----

/** counts[kind][status or 'no answer'] */
const counts = {};
function count(kind, status) {
  const k = (counts[kind] ??= {});
  k[status] = (k[status] ?? 0) + 1;
}
const classOf = (status) => (typeof status === 'number' ? `${Math.floor(status / 100)}xx` : status);

async function send(dispatcher, { method = 'GET', path: p, headers = {}, body }) {
  try {
    const res = await request(`${server.url}${p}`, { method, dispatcher, headers: { authorization: `Bearer ${token}`, ...headers }, body, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const text = await res.body.text();
    return { status: res.statusCode, text };
  } catch (err) {
    return { status: 'no answer', text: String(err?.code ?? err) };
  }
}

/** One raw HTTP/1.1 TLS connection; resolves with the time until the server closed it (ms). */
function rawConnection(url, { write, readable = true } = {}) {
  const u = new URL(url);
  const started = Date.now();
  let socket;
  const closed = new Promise((resolve) => {
    socket = tlsConnect({ host: u.hostname, port: Number(u.port), ca: creds.ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => write?.(socket));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Date.now() - started));
    if (readable) socket.on('data', () => undefined);
    else socket.pause();
  });
  return { socket: () => socket, closed };
}

// ---- setup ----

const bundleFile = await buildApiServerBundle();
const bigPem = await bigTrustBundle();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-soak-'));
const tokenFile = path.join(dataDir, 'tokens.csv');
fs.writeFileSync(tokenFile, `${token},soak,uid-soak,"soakers"\n`);
const server = await startApiServer({
  bundle: bundleFile,
  dataDir,
  args: [
    `--storage-backend=${backend}`,
    `--token-auth-file=${tokenFile}`,
    '--authorization-mode=AlwaysAllow',
    '--max-requests-inflight=4',
    '--max-mutating-requests-inflight=2',
  ],
});
const pid = server.child.pid;
const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
const h1 = new Agent({ connect: { ca: creds.ca }, connections: 16 });
const h2 = new Agent({ connect: { ca: creds.ca }, allowH2: true });
const admin = new Agent({ connect: creds });

let crashed = null;
let stderrTail = '';
server.child.stderr.on('data', (c) => (stderrTail = (stderrTail + c).slice(-2000)));
server.child.once('exit', (code, signal) => {
  if (!stopping) crashed = { code, signal, stderr: stderrTail.slice(-600) };
});
let stopping = false;

await seedObjects(server.url, admin, creds.ca, { count: 200, name: (i) => `soak-${i}`, labels: { soak: 'yes' } });
{
  const res = await send(admin, { method: 'POST', path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'soak-big' }, spec: { trustBundle: bigPem } }) });
  if (res.status !== 201) throw new Error(`create of the big bundle: ${res.status} ${res.text.slice(0, 300)}`);
}
log(`server ${server.url} (pid ${pid}, ${backend}); seeded 200 bundles and one of ${Math.round(bigPem.length / 1024)} KiB`);

// ---- monitors ----

const rssMiB = () => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
};
const rssSamples = [];
const rssTimer = setInterval(() => rssSamples.push({ t: Date.now(), mib: rssMiB() }), 250);
const livez = { probes: 0, failures: 0, worstMs: 0 };
let probing = true;
const livezAgent = new Agent({ connect: { ca: creds.ca } });
const livezLoop = (async () => {
  while (probing) {
    const started = performance.now();
    const res = await send(livezAgent, { path: '/livez' });
    const ms = performance.now() - started;
    livez.probes++;
    if (res.status !== 200) livez.failures++;
    if (phase === 'load') livez.worstMs = Math.max(livez.worstMs, ms);
    await sleep(250);
  }
})();

// ---- valid load ----

let phase = 'warmup';
let running = true;
let created = 0;
const createdNames = [];
let bigUpdate = 0;

async function validWorker(dispatcher) {
  while (running) {
    const r = Math.random();
    let res;
    if (r < 0.3) res = await send(dispatcher, { path: `${collection}/soak-${Math.floor(Math.random() * 200)}` });
    else if (r < 0.4) res = await send(dispatcher, { path: `${collection}?limit=100` });
    else if (r < 0.45) res = await send(dispatcher, { path: `${collection}?labelSelector=soak%3Dyes&limit=50` });
    else if (r < 0.6) {
      const name = `made-${created++}`;
      res = await send(dispatcher, { method: 'POST', path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle: creds.ca } }) });
      if (res.status === 201) createdNames.push(name);
    } else if (r < 0.7 && createdNames.length > 0) {
      res = await send(dispatcher, { method: 'DELETE', path: `${collection}/${createdNames.shift()}` });
    } else if (r < 0.9) {
      res = await send(dispatcher, { method: 'PATCH', path: `${collection}/soak-${Math.floor(Math.random() * 200)}`, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { n: String(Math.floor(Math.random() * 1e6)) } } }) });
    } else {
      const i = Math.floor(Math.random() * 200);
      res = await send(dispatcher, { method: 'PATCH', path: `${collection}/soak-${i}?fieldManager=soak-apply&force=true`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: `soak-${i}`, annotations: { applied: String(Date.now()) } } }) });
    }
    if (res) count('valid', res.status);
  }
}

async function bigBundleUpdater() {
  while (running) {
    const res = await send(h1, { method: 'PATCH', path: `${collection}/soak-big`, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { update: String(bigUpdate++) } } }) });
    count('valid: 985 KiB bundle label update', res.status);
    await sleep(200);
  }
}

const watchCounts = { events: 0, ended: 0 };
async function readingWatcher(dispatcher) {
  while (running) {
    try {
      const res = await request(`${server.url}${collection}?watch=true&allowWatchBookmarks=true&timeoutSeconds=30`, { dispatcher, headers: { authorization: `Bearer ${token}` }, bodyTimeout: 0 });
      count('valid: watch', res.statusCode);
      for await (const chunk of res.body) {
        watchCounts.events += chunk.toString().split('\n').length - 1;
        if (!running) break;
      }
    } catch {
      count('valid: watch', 'no answer');
    }
    watchCounts.ended++;
  }
}

// ---- hostile load ----

const hostile = hostileInputs(creds.ca);
// --skip a,b: leave out the hostile inputs whose names contain any of these (to look at the rest).
const skip = (flag('skip', '') || '').split(',').filter(Boolean);
const hostileNames = Object.keys(hostile).filter((n) => !skip.some((s) => n.includes(s)));
let hostileSeq = 0;
async function hostileWorker(offset) {
  for (let i = offset; running; i++) {
    const name = hostileNames[i % hostileNames.length];
    // (One sequence number for both workers names the objects, so that they never collide.)
    const res = await send(h1, hostile[name].make(hostileSeq++));
    count(`hostile: ${name}`, res.status);
    if (res.status === 201) {
      const created = JSON.parse(res.text).metadata?.name;
      if (created) await send(admin, { method: 'DELETE', path: `${collection}/${created}` });
    }
    if (i % 7 === 0) {
      // Malformed HTTP on a raw connection: 400 with a Status, then the server closes it.
      const c = rawConnection(server.url, { write: (s) => s.write('GARBAGE GARBAGE\r\n\r\n') });
      let text = '';
      c.socket().on('data', (d) => (text += d.toString()));
      await c.closed;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      count('hostile: malformed HTTP/1.1', m ? Number(m[1]) : 'no answer');
    }
  }
}

// ---- slow clients ----

const slow = { dribblerCloseMs: [], idleCloseMs: [], stuckWatchers: 0 };
async function dribbler() {
  while (running) {
    let timer;
    const c = rawConnection(server.url, {
      write: (s) => {
        s.write(`GET ${collection} HTTP/1.1\r\nHost: localhost\r\n`);
        timer = setInterval(() => s.writable && s.write(`X-Slow: ${Date.now()}\r\n`), 2000);
      },
    });
    const ms = await Promise.race([c.closed, (async () => {
      while (running) await sleep(200);
      return undefined;
    })()]);
    clearInterval(timer);
    if (ms !== undefined) slow.dribblerCloseMs.push(ms);
    else c.socket().destroy();
  }
}
async function idleConnection() {
  while (running) {
    const c = rawConnection(server.url);
    const ms = await Promise.race([c.closed, (async () => {
      while (running) await sleep(200);
      return undefined;
    })()]);
    if (ms !== undefined) slow.idleCloseMs.push(ms);
    else c.socket().destroy();
  }
}
async function stuckWatcher() {
  while (running) {
    slow.stuckWatchers++;
    const c = rawConnection(server.url, {
      readable: false,
      write: (s) => s.write(`GET ${collection}?watch=true HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`),
    });
    await Promise.race([c.closed, (async () => {
      while (running) await sleep(200);
    })()]);
    c.socket().destroy();
  }
}

// ---- run ----

const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const valid = [...Array.from({ length: 8 }, () => validWorker(h1)), ...Array.from({ length: 2 }, () => validWorker(h2)), bigBundleUpdater(), ...Array.from({ length: 5 }, (_, i) => readingWatcher(i % 2 ? h2 : h1))];
log(`warm-up: ${warmupS} s of valid load`);
await sleep(warmupS * 1000);
const memoryOf = async () => {
  const text = (await send(admin, { path: '/metrics' })).text;
  const mib = (name) => Math.round(Number(/^(\S+) (\S+)$/m.exec(text.split('\n').filter((l) => l.startsWith(`${name} `))[0] ?? '')?.[2]) / 1048576);
  return { heapUsed: mib('nodejs_heap_size_used_bytes'), heapTotal: mib('nodejs_heap_size_total_bytes'), external: mib('nodejs_external_memory_bytes'), watchCacheWindow: mib('apiserver_watch_cache_window_bytes') };
};
const memoryStart = await memoryOf();
const warmSamples = rssSamples.slice(-8).map((s) => s.mib);
const rssStart = median(warmSamples);
for (const k of Object.keys(counts)) delete counts[k];
phase = 'load';
const loadStarted = Date.now();
log(`load: ${durationS} s of valid, hostile and slow clients (RSS start ${rssStart.toFixed(0)} MiB)`);
const load = [
  hostileWorker(0),
  hostileWorker(Math.floor(hostileNames.length / 2)),
  ...Array.from({ length: 20 }, dribbler),
  ...Array.from({ length: 10 }, idleConnection),
  ...Array.from({ length: 3 }, stuckWatcher),
];
while (Date.now() - loadStarted < durationS * 1000 && !crashed) await sleep(250);
running = false;
const loadEnded = Date.now();
await Promise.race([Promise.all([...valid, ...load]), sleep(40_000)]);
phase = 'settle';
const peak = Math.max(...rssSamples.filter((s) => s.t >= loadStarted).map((s) => s.mib));

let backAfterS = null;
const settleStart = Date.now();
while (!crashed && Date.now() - settleStart < settleS * 1000) {
  await sleep(1000);
  const recent = median(rssSamples.slice(-4).map((s) => s.mib));
  if (recent <= rssStart * 1.2) {
    backAfterS = (Date.now() - loadEnded) / 1000;
    break;
  }
}
const rssEnd = median(rssSamples.slice(-4).map((s) => s.mib));
probing = false;
await livezLoop;
clearInterval(rssTimer);
stopping = true;
const metrics = crashed ? '' : (await send(admin, { path: '/metrics' })).text;
const memoryEnd = crashed ? undefined : await memoryOf();
await server.stop();
for (const a of [h1, h2, admin, livezAgent]) await a.destroy();
fs.rmSync(dataDir, { recursive: true, force: true });

// ---- report ----

const gauge = (name) => {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
};
const byClass = {};
for (const [kind, statuses] of Object.entries(counts)) {
  byClass[kind] = {};
  for (const [status, n] of Object.entries(statuses)) {
    const cls = classOf(Number.isNaN(Number(status)) ? status : Number(status));
    byClass[kind][cls] = (byClass[kind][cls] ?? 0) + n;
  }
}
const badInput5xx = Object.entries(byClass)
  .filter(([k]) => k.startsWith('hostile'))
  .reduce((n, [, c]) => n + (c['5xx'] ?? 0), 0);
const badInputNoAnswer = Object.entries(byClass)
  .filter(([k]) => k.startsWith('hostile'))
  .reduce((n, [, c]) => n + (c['no answer'] ?? 0), 0);
const report = {
  backend,
  durationS,
  warmupS,
  requests: byClass,
  statuses: counts,
  badInput5xx,
  badInputNoAnswer,
  crashes: crashed ? 1 : 0,
  crash: crashed,
  rssMiB: { start: Math.round(rssStart), peak: Math.round(peak), end: Math.round(rssEnd) },
  memoryMiB: { start: memoryStart, end: memoryEnd },
  rssBackWithin20Percent: backAfterS !== null,
  rssBackAfterS: backAfterS,
  livez: { probes: livez.probes, failures: livez.failures, worstLatencyMsUnderLoad: Math.round(livez.worstMs) },
  slowClients: {
    dribblersClosed: slow.dribblerCloseMs.length,
    dribblerCloseS: { median: median(slow.dribblerCloseMs) / 1000, max: Math.max(...slow.dribblerCloseMs, 0) / 1000 },
    idleClosed: slow.idleCloseMs.length,
    idleCloseS: { median: median(slow.idleCloseMs) / 1000, max: Math.max(...slow.idleCloseMs, 0) / 1000 },
    stuckWatchers: slow.stuckWatchers,
  },
  watch: watchCounts,
  bigBundleUpdates: bigUpdate,
  watchCacheWindow: { events: gauge('apiserver_watch_cache_window_events'), bytes: gauge('apiserver_watch_cache_window_bytes'), limitBytes: gauge('apiserver_watch_cache_window_bytes_limit') },
};

if (asJson) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const line = (k, c) => `  ${k.padEnd(52)} ${Object.entries(c).sort().map(([cls, n]) => `${cls} ${n}`).join('  ')}`;
  console.log(`soak: ${durationS} s of load after ${warmupS} s of warm-up, backend ${backend}, in-flight limits 4/2`);
  console.log('requests by kind and status class:');
  for (const [k, c] of Object.entries(byClass).sort()) console.log(line(k, c));
  console.log(`5xx for bad input: ${badInput5xx} (must be 0); bad input without an answer: ${badInputNoAnswer}`);
  console.log(`crashes: ${report.crashes}${crashed ? ` (${JSON.stringify(crashed)})` : ''}`);
  console.log(`RSS MiB: start ${report.rssMiB.start} (after warm-up), peak ${report.rssMiB.peak}, end ${report.rssMiB.end}; back within 20% of start: ${backAfterS !== null ? `yes, ${backAfterS.toFixed(0)} s after the load` : `no (after ${settleS} s)`}`);
  console.log(`heap MiB (used/total/external, watch cache window): start ${JSON.stringify(memoryStart)}, end ${JSON.stringify(memoryEnd)}`);
  console.log(`/livez: ${livez.probes} probes, ${livez.failures} failed, worst latency under load ${report.livez.worstLatencyMsUnderLoad} ms`);
  console.log(`slow clients: ${report.slowClients.dribblersClosed} header dribblers closed by the server after ${report.slowClients.dribblerCloseS.median} s (median, max ${report.slowClients.dribblerCloseS.max} s); ${report.slowClients.idleClosed} silent connections after ${report.slowClients.idleCloseS.median} s; ${slow.stuckWatchers} watchers that never read`);
  console.log(`watch: ${watchCounts.events} lines read by 5 watchers (${watchCounts.ended} re-watches); 985 KiB bundle updated ${bigUpdate} times; watch cache window ${report.watchCacheWindow.events} events, ${Math.round((report.watchCacheWindow.bytes ?? 0) / 1048576)} of ${Math.round((report.watchCacheWindow.limitBytes ?? 0) / 1048576)} MiB`);
}
process.exit(0);
