#!/usr/bin/env node
// 10,000 `clientctl trust sync` watches on one apiserver (issue 30, item 4).
//
//   node tools/bench/trust/watch-10k.mjs [--watchers 10000] [--streams-per-session 100] [--sessions N]
//        [--clients 4] [--updates 5] [--rounds 3] [--interval 1000] [--get-rate 200]
//        [--backend sqlite|memory] [--pin main|all|none] [--bundle path/to/main.mjs]
//        [--server-node-args '--cpu-prof --cpu-prof-dir=DIR'] [--json]
//
// What a trust sync client asks for (apps/clientctl `trust sync --signer S`: watchTrustAnchors in
// @plat/trust): one LIST of the signer's ClusterTrustBundles (`fieldSelector=spec.signerName=S`),
// then a watch from the list's resourceVersion with `allowWatchBookmarks=true` and a random
// `timeoutSeconds` of 5–10 minutes, `Accept: application/json`, `Accept-Encoding: gzip`; when the
// server ends a watch, the client watches again from the last resourceVersion it saw (also
// done here). The clients here speak HTTP/2 (node:http2) and share connections: --watchers
// watches are spread over --sessions HTTP/2 sessions of --streams-per-session streams each
// (default: the server's maximum, 100, which is also kube-apiserver's default for
// --http2-max-streams-per-connection since the fix of CVE-2023-44487: k8s.io/apiserver
// pkg/server/secure_serving.go; a larger value is passed to the server as that flag), in
// --clients child processes, each session doing one LIST first (the watches of a session start
// from its resourceVersion).
//
// Memory: the server's VmRSS (/proc/PID/status) before any client connects, with the sessions
// open (one LIST each, no watch), and once every watch is established and idle for 5 s;
// per idle watch = (watches idle − sessions open) / N, and the same with the sessions' own cost
// (− before). The server has no debug endpoint for its heap, and a heap snapshot
// (--heapsnapshot-signal) of a server holding HTTP/2 watch streams did not finish here within
// 5 minutes (node 20.20), so RSS is the measure; --server-node-args '--trace-gc' shows the heap.
// Fan-out: --rounds rounds of --updates merge PATCHes (a new CA certificate) of one of the
// signer's bundles, --interval ms apart; for each update and each watch, the time from the moment
// the PATCH's 200 arrived in this process to the moment the watch's MODIFIED event at that
// resourceVersion arrived in its client (both on the machine's clock: performance.timeOrigin +
// performance.now()). Missed events (a watch that has not seen an update 60 s later) must be 0.
// During each round an open-loop GET of one bundle at --get-rate requests/s (lib/open-loop.mjs,
// HTTP/1.1, 8 connections, in a child process) measures GET latency; the same load runs once
// before any watch exists, as the baseline. The server's CPU time per update (/proc, from the
// first update of a round until every watch had its last, GET load included) compares builds
// (--bundle) on a loaded machine better than latencies do.
// --bundle runs an apiserver bundle built elsewhere (for a before/after, as bench.mjs's --bundle).
// Targets: fan-out p99 < 2 s, memory per idle watch <= 20 KiB, GET p99 < 100 ms during fan-out.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { adminCredentials, cpuSeconds, pinning } from '../lib/apiserver-harness.mjs';
import { openLoopGetInChild } from '../lib/open-loop.mjs';
import { bundleName, collection, distribution, formatRange, loadAverage, loadTrustPackages, makeCertificates, overRounds, runMain, startServer, trustBenchFlags, waitFor, writeBundle } from './common.mjs';

const signerName = 'example.com/bench-watch-10k';
const fieldSelector = `spec.signerName=${signerName}`;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes on one machine. */
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// A client process: its share of the sessions and watches; answers the parent over IPC.
// ---------------------------------------------------------------------------------------------
async function clientProcess() {
  /** @type {Array<{ session: http2.ClientHttp2Session, rv: string }>} */
  const sessions = [];
  /** Per watch: the last resourceVersion seen (events and bookmarks). */
  const lastRv = [];
  /** resourceVersion → arrival time of its MODIFIED event, per watch. */
  const arrivals = new Map();
  let established = 0;
  let rewatches = 0;
  let closing = false;
  const failures = [];
  let cfg;

  const headers = (p) => ({ ':method': 'GET', ':path': p, accept: 'application/json', 'accept-encoding': 'gzip', 'user-agent': 'clientctl/bench-watch-10k' });

  const list = (session) =>
    new Promise((resolve, reject) => {
      const req = session.request(headers(`${collection}?fieldSelector=${encodeURIComponent(fieldSelector)}`));
      let status = 0;
      let body = '';
      req.setEncoding('utf8');
      req.on('response', (h) => (status = h[':status']));
      req.on('data', (c) => (body += c));
      req.on('end', () => (status === 200 ? resolve(JSON.parse(body).metadata.resourceVersion) : reject(new Error(`LIST: ${status} ${body}`))));
      req.on('error', reject);
      req.end();
    });

  const openWatch = (w, session, rv, first) => {
    // watchTrustAnchors: a random timeoutSeconds of 5–10 minutes, as client-go's reflector.
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    const query = new URLSearchParams({ fieldSelector, resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds), watch: 'true' });
    const req = session.request(headers(`${collection}?${query}`));
    let buf = '';
    req.setEncoding('utf8');
    req.on('response', (h) => {
      if (h[':status'] !== 200) failures.push(`watch ${w}: status ${h[':status']}`);
      else if (first) established++;
    });
    req.on('data', (chunk) => {
      const at = now();
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /"resourceVersion":"(\d+)"/.exec(line);
        if (m) lastRv[w] = m[1];
        if (line.startsWith('{"type":"MODIFIED"') && m) {
          let times = arrivals.get(m[1]);
          if (!times) arrivals.set(m[1], (times = new Float64Array(lastRv.length).fill(NaN)));
          times[w] = at;
        } else if (line.startsWith('{"type":"ERROR"')) failures.push(`watch ${w}: ${line.slice(0, 300)}`);
      }
    });
    req.on('error', (err) => {
      if (!closing) failures.push(`watch ${w}: ${err.message}`);
    });
    req.on('end', () => {
      // The server ended the watch at its timeoutSeconds: watch again from the last revision seen.
      if (closing) return;
      rewatches++;
      openWatch(w, session, lastRv[w], false);
    });
    req.end();
  };

  const handlers = {
    async open(msg) {
      cfg = msg;
      for (let s = 0; s < msg.sessions; s++) {
        const session = http2.connect(msg.origin, { ca: msg.tls.ca, cert: msg.tls.cert, key: msg.tls.key });
        session.on('error', (err) => {
          if (!closing) failures.push(`session ${s}: ${err.message}`);
        });
        await new Promise((resolve, reject) => {
          session.once('connect', resolve);
          session.once('error', reject);
        });
        sessions.push({ session, rv: await list(session) });
      }
      return { sessions: sessions.length };
    },
    async watch() {
      const total = sessions.length * cfg.streamsPerSession;
      for (let i = 0; i < total; i++) lastRv.push('');
      let w = 0;
      for (const [s, { session, rv }] of sessions.entries()) {
        const perSession = Math.floor(cfg.watches / sessions.length) + (s < cfg.watches % sessions.length ? 1 : 0);
        for (let j = 0; j < perSession; j++, w++) {
          lastRv[w] = rv;
          openWatch(w, session, rv, true);
        }
        // One session's watches at a time, as clients starting over a while would.
        await waitForLocal(() => established >= w || failures.length > 0, 60_000);
      }
      lastRv.length = w;
      return { established, failures: failures.slice(0, 5) };
    },
    status() {
      return { established, rewatches, failures: failures.slice(0, 5), failureCount: failures.length };
    },
    arrivals({ rv }) {
      const times = arrivals.get(rv);
      // null for a watch that has not seen it (NaN would cross IPC's JSON as null anyway).
      return { times: Array.from({ length: lastRv.length }, (_, w) => (times && !Number.isNaN(times[w]) ? times[w] : null)) };
    },
    async close() {
      closing = true;
      for (const { session } of sessions) session.destroy();
      return {};
    },
  };
  process.on('message', async ({ id, cmd, ...args }) => {
    try {
      process.send({ id, ok: true, value: await handlers[cmd](args) });
    } catch (err) {
      process.send({ id, ok: false, error: String(err?.stack ?? err) });
    }
  });
}

async function waitForLocal(predicate, timeoutMs) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A forked client process with request/answer calls over IPC. */
function startClient() {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } });
  let next = 0;
  const pending = new Map();
  child.on('message', ({ id, ok, value, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(new Error(`client ${child.pid}: ${error}`));
  });
  child.once('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`client ${child.pid} exited with ${code}`));
    pending.clear();
  });
  return {
    pid: child.pid,
    call(cmd, args = {}) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, cmd, ...args });
      });
    },
    kill: () => child.kill('SIGKILL'),
  };
}

// ---------------------------------------------------------------------------------------------
// The benchmark.
// ---------------------------------------------------------------------------------------------

/** Resident memory of a process in bytes (VmRSS), NaN where unknown. */
function rssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mib = (b) => Number((b / 2 ** 20).toFixed(1));

async function main() {
  const { flag, rounds, backend, asJson, log } = trustBenchFlags();
  const watchers = Number(flag('watchers', '10000'));
  const streamsPerSession = Number(flag('streams-per-session', '100'));
  const sessionCount = Number(flag('sessions', String(Math.ceil(watchers / streamsPerSession))));
  if (sessionCount * streamsPerSession < watchers) throw new Error(`--sessions ${sessionCount} x --streams-per-session ${streamsPerSession} < --watchers ${watchers}`);
  const clientCount = Math.min(Number(flag('clients', '4')), sessionCount);
  const updates = Number(flag('updates', '5'));
  const intervalMs = Number(flag('interval', '1000'));
  const getRate = Number(flag('get-rate', '200'));
  const pin = pinning.mode(flag('pin', 'none'));

  const trust = await loadTrustPackages();
  if (pin !== 'none') pinning.loadGenerator();
  const serverArgs = streamsPerSession > 100 ? [`--http2-max-streams-per-connection=${streamsPerSession}`] : [];
  // For a look inside the server, e.g. --server-node-args '--cpu-prof --cpu-prof-dir=/tmp/prof' or '--trace-gc'.
  const nodeArgs = flag('server-node-args', '').split(' ').filter(Boolean);
  const server = await startServer({ backend, args: serverArgs, nodeArgs, bundle: flag('bundle') ? path.resolve(flag('bundle')) : undefined });
  const pid = server.child.pid;
  pinning.serverAs(pin, pid);
  const clients = [];
  const creds = adminCredentials(server.kubeconfig);
  const tlsOptions = { ca: creds.ca, cert: creds.cert, key: creds.key };
  const staticName = bundleName(signerName, 'static');
  const rotatingName = bundleName(signerName, 'rotating');
  const getLoad = (duration) => openLoopGetInChild({ origin: server.url, path: `${collection}/${encodeURIComponent(staticName)}`, tlsOptions, headers: { accept: 'application/json' }, rate: getRate, duration, warmup: 2, connections: 8 });
  const memoryPoint = () => rssBytes(pid);
  const registeredWatchers = async () => {
    const res = await request(`${server.url}/metrics`, { dispatcher: server.dispatcher });
    const text = await res.body.text();
    return [...text.matchAll(/^apiserver_registered_watchers\{[^}]*kind="ClusterTrustBundle"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const arrivalsOf = async (rv) => (await Promise.all(clients.map((c) => c.call('arrivals', { rv })))).flatMap((a) => a.times);
  try {
    const [staticCa, firstCa] = await makeCertificates(trust.x509, 2, 'bench-watch-10k-static');
    await writeBundle(server, { name: staticName, signerName, trustBundle: staticCa, create: true });
    await writeBundle(server, { name: rotatingName, signerName, trustBundle: firstCa, create: true });

    log(`GET baseline (no watches): ${getRate}/s open loop...`);
    const getBaseline = await getLoad(5);
    log(`  p50 ${getBaseline.p50ms} ms, p99 ${getBaseline.p99ms} ms`);
    await sleep(2000);
    const rssBefore = memoryPoint();

    log(`opening ${sessionCount} HTTP/2 sessions (${streamsPerSession} streams each) in ${clientCount} client processes...`);
    for (let c = 0; c < clientCount; c++) clients.push(startClient());
    const share = (c, total) => Math.floor(total / clientCount) + (c < total % clientCount ? 1 : 0);
    const origin = server.url;
    // Watches spread evenly over the sessions, sessions over the clients.
    const sessionsOf = clients.map((_, c) => share(c, sessionCount));
    const firstSession = (c) => sessionsOf.slice(0, c).reduce((n, x) => n + x, 0);
    const watchesOfSession = (s) => Math.floor(watchers / sessionCount) + (s < watchers % sessionCount ? 1 : 0);
    const watchesOf = (c) => Array.from({ length: sessionsOf[c] }, (_, i) => watchesOfSession(firstSession(c) + i)).reduce((n, x) => n + x, 0);
    await Promise.all(clients.map((cl, c) => cl.call('open', { origin, tls: tlsOptions, sessions: sessionsOf[c], streamsPerSession, watches: watchesOf(c) })));
    await sleep(3000);
    const rssSessions = memoryPoint();

    log(`opening ${watchers} watches...`);
    const t0 = performance.now();
    const opened = await Promise.all(clients.map((cl) => cl.call('watch')));
    const established = opened.reduce((n, o) => n + o.established, 0);
    const openFailures = opened.flatMap((o) => o.failures);
    if (established !== watchers || openFailures.length) throw new Error(`${established} of ${watchers} watches established: ${openFailures.join('; ')}`);
    const openSeconds = (performance.now() - t0) / 1000;
    log(`  all established in ${openSeconds.toFixed(1)} s; the server counts ${await registeredWatchers()} ClusterTrustBundle watchers`);
    await sleep(5000);
    const rssIdle = memoryPoint();
    const perWatch = (rssIdle - rssSessions) / watchers;
    const perWatchWithSessions = (rssIdle - rssBefore) / watchers;
    log(`  RSS ${mib(rssBefore)} MiB before, ${mib(rssSessions)} MiB with sessions, ${mib(rssIdle)} MiB with ${watchers} idle watches: ${(perWatch / 1024).toFixed(1)} KiB per watch (${(perWatchWithSessions / 1024).toFixed(1)} KiB with its share of the sessions)`);

    // A warm-up change, not measured: every watch's first event.
    const warmCa = (await makeCertificates(trust.x509, 1, 'bench-watch-10k-warm'))[0];
    const warm = await writeBundle(server, { name: rotatingName, signerName, trustBundle: warmCa });
    await waitFor('the warm-up change to reach every watch', async () => (await arrivalsOf(warm.resourceVersion)).every((t) => t !== null), 120_000);

    const perRound = [];
    const cas = await makeCertificates(trust.x509, rounds * updates, 'bench-watch-10k');
    for (let r = 0; r < rounds; r++) {
      // The GET load covers the updates and the wait for the last one to arrive.
      const getDuration = Math.ceil((updates * intervalMs) / 1000) + 2;
      const getting = getLoad(getDuration);
      await sleep(2500);
      const writes = [];
      const cpuBefore = cpuSeconds(pid);
      for (let u = 0; u < updates; u++) {
        const w = await writeBundle(server, { name: rotatingName, signerName, trustBundle: cas[r * updates + u] });
        writes.push({ rv: w.resourceVersion, answeredAt: performance.timeOrigin + w.answeredAt });
        if (u + 1 < updates) await sleep(intervalMs);
      }
      const delays = [];
      let missed = 0;
      for (const { rv, answeredAt } of writes) {
        let times = [];
        try {
          await waitFor(`round ${r + 1}'s update at ${rv} to reach every watch`, async () => (times = await arrivalsOf(rv)).every((t) => t !== null), 60_000);
        } catch {
          // Counted below.
        }
        for (const t of times) {
          if (t === null) missed++;
          else delays.push(t - answeredAt);
        }
      }
      // The server's CPU time from the first update until every watch had the last one (the GET
      // load included): what one change to N watchers costs, which machine load hardly moves.
      const cpuPerUpdateMs = Number((((cpuSeconds(pid) - cpuBefore) * 1000) / updates).toFixed(1));
      const get = await getting;
      const d = distribution(delays);
      // The server's RSS after each round shows whether memory settles or grows with every change.
      const rssMiB = mib(rssBytes(pid));
      perRound.push({ ...d, missed, cpuPerUpdateMs, rssMiB, get: { p50ms: get.p50ms, p99ms: get.p99ms, maxms: get.maxms, rps: get.rps, non2xx: get.non2xx } });
      log(`round ${r + 1}/${rounds}: fan-out p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms, missed ${missed}, server CPU ${cpuPerUpdateMs} ms per update, RSS ${rssMiB} MiB; GET p50 ${get.p50ms} ms, p99 ${get.p99ms} ms (${get.rps}/s) (load average ${loadAverage().join(' ')})`);
    }
    const rssAfter = rssBytes(pid);
    const status = await Promise.all(clients.map((c) => c.call('status')));
    const failures = status.flatMap((s) => s.failures);
    if (failures.length) throw new Error(`watch failures:\n${failures.join('\n')}`);

    const summary = {
      p50: overRounds(perRound.map((d) => d.p50)),
      p99: overRounds(perRound.map((d) => d.p99)),
      max: overRounds(perRound.map((d) => d.max)),
      getP99: overRounds(perRound.map((d) => d.get.p99ms)),
      missed: perRound.reduce((n, d) => n + d.missed, 0),
      cpuPerUpdateMs: overRounds(perRound.map((d) => d.cpuPerUpdateMs)),
    };
    const memory = { rssBeforeMiB: mib(rssBefore), rssSessionsMiB: mib(rssSessions), rssIdleMiB: mib(rssIdle), rssAfterRoundsMiB: mib(rssAfter), perIdleWatchKiB: Number((perWatch / 1024).toFixed(2)), perIdleWatchWithSessionsKiB: Number((perWatchWithSessions / 1024).toFixed(2)) };
    const targets = {
      fanOutP99: { value: summary.p99.median, target: '< 2000 ms', ok: perRound.filter((d) => d.p99 < 2000).length, of: rounds },
      missed: { value: summary.missed, target: '0', ok: summary.missed === 0 },
      perIdleWatch: { value: memory.perIdleWatchKiB, target: '<= 20 KiB', ok: memory.perIdleWatchKiB <= 20 },
      getP99: { value: summary.getP99.median, target: '< 100 ms', ok: perRound.filter((d) => d.get.p99ms < 100).length, of: rounds },
    };
    const report = {
      benchmark: 'watch 10k',
      backend,
      watchers,
      sessions: sessionCount,
      streamsPerSession,
      clients: clientCount,
      updates,
      rounds,
      intervalMs,
      getRate,
      pin,
      node: process.version,
      cpus: os.cpus().length,
      loadAverage: loadAverage(),
      openSeconds: Number(openSeconds.toFixed(1)),
      rewatches: status.reduce((n, s) => n + s.rewatches, 0),
      memory,
      getBaseline: { p50ms: getBaseline.p50ms, p99ms: getBaseline.p99ms, maxms: getBaseline.maxms },
      perRound,
      summary,
      targets,
    };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`${watchers} trust-sync watches over ${sessionCount} HTTP/2 sessions x ${streamsPerSession} streams (${clientCount} client processes), ${rounds} rounds x ${updates} updates (${backend}, node ${process.version}, ${report.cpus} CPUs)`);
      console.log(`fan-out (PATCH 200 -> MODIFIED at each watch): p50 ${formatRange(summary.p50)} ms   p99 ${formatRange(summary.p99)} ms   max ${formatRange(summary.max)} ms   missed ${summary.missed}`);
      console.log(`server CPU per update (fan-out to every watch, GET load included): ${formatRange(summary.cpuPerUpdateMs)} ms`);
      console.log(`GET p99 at ${getRate}/s: ${formatRange(summary.getP99, 2)} ms during fan-out, ${getBaseline.p99ms} ms without watches`);
      console.log(`server RSS: ${memory.rssBeforeMiB} MiB before, ${memory.rssSessionsMiB} with sessions, ${memory.rssIdleMiB} with idle watches, ${memory.rssAfterRoundsMiB} after the rounds; ${memory.perIdleWatchKiB} KiB per idle watch (${memory.perIdleWatchWithSessionsKiB} with the sessions)`);
      console.log(`load average ${report.loadAverage.join(' ')}`);
      console.log(`${targets.fanOutP99.ok === rounds ? 'PASS' : 'FAIL'} fan-out p99 < 2 s in ${targets.fanOutP99.ok} of ${rounds} rounds; ${targets.missed.ok ? 'PASS' : 'FAIL'} missed 0; ${targets.perIdleWatch.ok ? 'PASS' : 'FAIL'} <= 20 KiB per idle watch; ${targets.getP99.ok === rounds ? 'PASS' : 'FAIL'} GET p99 < 100 ms in ${targets.getP99.ok} of ${rounds} rounds`);
    }
  } finally {
    await Promise.all(clients.map((c) => c.call('close').catch(() => undefined)));
    for (const c of clients) c.kill();
    await server.stop();
  }
}

if (process.argv[2] === '--child') await clientProcess();
else runMain(main);
