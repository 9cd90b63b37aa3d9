#!/usr/bin/env node
// Where the slow answers of the p99-at-50% measurement come from. It runs bench.mjs's sequence
// (1 + --objects ClusterTrustBundles created 50 at a time, closed-loop GET to find the maximum,
// then open-loop GET at half of it, or at --rate) with three recorders, and groups the answers
// slower than --threshold ms into episodes (slow answers due less than 30 ms apart):
//
//   node tools/bench/apiserver/episodes.mjs [--rounds 3] [--rate N] [--objects 1000] [--threshold 5] [--top 4]
//                                          [--pin main|all|none]
//
// --pin as in bench.mjs (default none): `main` puts the server's main thread on CPU 0 and this
// process with the load generator it starts on the others; `all` every thread of the server.
//
// - the load generator records each request's due time and latency (lib/open-loop.mjs, trace);
// - the server records its garbage collections and event-loop lags (server-monitor.mjs, preloaded);
// - a sampler reads the /proc schedstat of the server's and the load generator's main threads every
//   2 ms: the time each ran and the time it was runnable but waited for a CPU.
// For each of the --top largest episodes of a round it prints what the three saw from 60 ms before
// the episode to its end, with times relative to its start. Linux only (/proc).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, closedLoopGetRate, cpuSeconds, createBenchBundle, pinning, seedObjects, startApiServer } from '../lib/apiserver-harness.mjs';
import { openLoopGetInChild } from '../lib/open-loop.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** `--sample OUT PID...`: this file as the schedstat sampler of the PIDs' main threads, until SIGTERM. */
function sample(out, pids) {
  const samples = Object.fromEntries(pids.map((pid) => [pid, []]));
  setInterval(() => {
    for (const pid of pids) {
      try {
        const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
        samples[pid].push(performance.now() + performance.timeOrigin, run, wait);
      } catch {
        // Not started yet, or gone.
      }
    }
  }, 2);
  process.on('SIGTERM', () => {
    fs.writeFileSync(out, JSON.stringify(samples));
    process.exit(0);
  });
}

/** Slow answers grouped into episodes, largest first. */
export function episodesOf(trace, thresholdMs) {
  const slow = [];
  for (let i = 0; i < trace.length; i += 2) if (trace[i + 1] > thresholdMs) slow.push([trace[i], trace[i + 1]]);
  slow.sort((a, b) => a[0] - b[0]);
  const episodes = [];
  for (const [due, latency] of slow) {
    const e = episodes.at(-1);
    if (e && due - e.end < 30) {
      e.end = due;
      e.count++;
      if (latency > e.maxMs) e.maxMs = latency;
    } else episodes.push({ start: due, end: due, count: 1, maxMs: latency });
  }
  return episodes.sort((a, b) => b.count - a.count);
}

const GC_KINDS = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks' };

/** What a thread's schedstat samples say of [from, to]. */
function cpuOf(name, sched, from, to, at) {
  let ran = 0;
  let waited = 0;
  const waits = [];
  for (let i = 3; i < sched.length; i += 3) {
    if (sched[i] < from || sched[i] > to) continue;
    ran += sched[i + 1] - sched[i - 2];
    const w = sched[i + 2] - sched[i - 1];
    waited += w;
    if (w > 1e6) waits.push(`${(w / 1e6).toFixed(1)} ms at ${at(sched[i])}`);
  }
  return `  ${name} main thread: ran ${(ran / 1e6).toFixed(1)} ms, waited for a CPU ${(waited / 1e6).toFixed(1)} ms; waits over 1 ms within a 2 ms sample: ${waits.join(', ') || 'none'}`;
}

function describe(episode, { gcs, lags }, sched, runStart) {
  const from = episode.start - 60;
  const at = (t) => `${(t - episode.start).toFixed(0)} ms`;
  const inWindow = (t) => t >= from && t <= episode.end;
  const lines = [`episode at +${((episode.start - runStart) / 1000).toFixed(2)} s: ${episode.count} answers slower than the threshold over ${(episode.end - episode.start).toFixed(0)} ms, the slowest ${episode.maxMs.toFixed(1)} ms`];
  const g = gcs.filter((x) => inWindow(x[0]));
  lines.push(`  collections: ${g.map((x) => `${GC_KINDS[x[2]] ?? x[2]} ${x[1].toFixed(1)} ms at ${at(x[0])}`).join(', ') || 'none'}`);
  const l = lags.filter((x) => inWindow(x[0]));
  lines.push(`  event-loop lags over 4 ms: ${l.map((x) => `${x[1].toFixed(1)} ms at ${at(x[0])}`).join(', ') || 'none'}`);
  lines.push(cpuOf('server', sched.server, from, episode.end, at));
  lines.push(cpuOf('load generator', sched.generator, from, episode.end, at));
  return lines.join('\n');
}

async function main() {
  const { flag, has } = benchFlags();
  const rounds = Number(flag('rounds', '3'));
  const objects = Number(flag('objects', '1000'));
  const thresholdMs = Number(flag('threshold', '5'));
  const top = Number(flag('top', '4'));
  const pin = pinning.mode(flag('pin', has('--pin') ? '' : 'none'));
  const bundle = await buildApiServerBundle();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-episodes-'));
  const server = await startApiServer({ bundle, dataDir: dir, nodeArgs: ['--import', pathToFileURL(path.join(here, 'server-monitor.mjs')).href] });
  const pid = server.child.pid;
  const monitorFile = path.join(os.tmpdir(), `plat-bench-monitor-${pid}.json`);
  const schedFile = path.join(dir, 'schedstat.json');
  try {
    const url = server.url;
    if (pin !== 'none') {
      pinning.loadGenerator();
      pinning.serverAs(pin, pid);
    }
    const creds = adminCredentials(path.join(dir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds, connections: 64 });
    await createBenchBundle(url, dispatcher, creds);
    await seedObjects(url, dispatcher, creds.ca, { count: objects, name: (i) => `bench-list-${String(i).padStart(4, '0')}`, labels: { bench: 'list' } });
    await dispatcher.close();
    const tlsOptions = { ca: creds.ca, cert: creds.cert, key: creds.key };
    const headers = { accept: 'application/json' };
    const max = await closedLoopGetRate({ url: `${url}${collection}/bench`, tlsOptions, headers });
    const rate = Number(flag('rate', '0')) || Math.floor(max / 2);
    console.log(`closed-loop maximum ${Math.round(max)} req/s; open loop at ${rate} req/s, ${rounds} rounds of 10 s`);
    for (let round = 1; round <= rounds; round++) {
      let sampler;
      const cpu = cpuSeconds(pid);
      let generatorPid;
      const r = await openLoopGetInChild(
        { origin: url, path: `${collection}/bench`, tlsOptions, headers, rate, duration: 10, connections: 32, trace: true },
        {
          onSpawn: (childPid) => {
            generatorPid = childPid;
            sampler = spawn(process.execPath, [fileURLToPath(import.meta.url), '--sample', schedFile, String(pid), String(childPid)], { stdio: 'inherit' });
          },
        },
      );
      const usPerRequest = ((1e6 * (cpuSeconds(pid) - cpu)) / r.sent).toFixed(1);
      const samplerExit = new Promise((resolve) => sampler.once('exit', resolve));
      sampler.kill('SIGTERM');
      await samplerExit;
      process.kill(pid, 'SIGUSR2');
      // The monitor renames its file into place once written.
      for (let i = 0; i < 100 && !fs.existsSync(monitorFile); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const monitor = JSON.parse(fs.readFileSync(monitorFile, 'utf8'));
      fs.rmSync(monitorFile);
      const samples = JSON.parse(fs.readFileSync(schedFile, 'utf8'));
      const sched = { server: samples[pid], generator: samples[generatorPid] };
      const runStart = r.trace[0];
      console.log(`\nround ${round}: p50 ${r.p50ms} ms, p99 ${r.p99ms} ms, p99.9 ${r.p999ms} ms, max ${r.maxms} ms; server ${usPerRequest} µs CPU/req`);
      for (const e of episodesOf(r.trace, thresholdMs).slice(0, top)) console.log(describe(e, monitor, sched, runStart));
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(monitorFile, { force: true });
  }
}

if (process.argv[2] === '--sample') sample(process.argv[3], process.argv.slice(4).map(Number));
else
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
