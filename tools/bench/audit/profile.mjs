#!/usr/bin/env node
// Where the CPU that auditing adds to a GET goes on the server: two apiservers from one bundle,
// audit off and the recommended policy of docs/audit.md with the log backend in batch mode, take
// turns under the same closed-loop GET load while Linux perf samples each of them on CPU time
// (`perf record -e cpu-clock`, V8's JIT functions named through `--perf-basic-prof-only-functions`).
// Prints the CPU per GET of each (the main thread and the other threads apart: libuv's pool writes
// the log, V8's helpers collect garbage), then per symbol the CPU per GET of both and the
// difference, largest first, with the JavaScript function each runtime symbol was called from.
//
//   node tools/bench/audit/profile.mjs [--rounds 4] [--duration 3] [--connections 16] [--top 30] [--bundle main.mjs]
//
// Needs `perf` (Debian's linux-perf) and kernel.perf_event_paranoid ≤ 2. Unlike V8's own sampling
// profiler (`--cpu-prof`), which samples on a wall-clock timer and so, on a loaded machine, charges
// the time a thread waits for a CPU to whatever is on top of its stack (system calls above all),
// cpu-clock samples only while a thread runs. perf's own overhead and the machine's load inflate
// every figure alike: read the differences and the shares, not the absolute microseconds.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, createBenchBundle, root, startApiServer } from '../lib/apiserver-harness.mjs';
import { auditServerArgs, recommendedPolicy } from './policy.mjs';

const { flag } = benchFlags();
const rounds = Number(flag('rounds', '4'));
const top = Number(flag('top', '30'));
const cannon = cannonWith({ connections: Number(flag('connections', '16')), duration: Number(flag('duration', '3')) });
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const hz = 4000;

try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('profile.mjs needs Linux perf (apt-get install linux-perf)');
  process.exit(2);
}

const recommended = recommendedPolicy();

/** CPU seconds of a process's main thread and of all its other threads, from /proc (clock ticks of 1/100 s). */
function threadSeconds(pid) {
  let main = 0;
  let others = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const s = (Number(f[11]) + Number(f[12])) / 100;
      if (Number(tid) === pid) main += s;
      else others += s;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return { main, others };
}

/** Samples per symbol of the main thread, each with the nearest JavaScript function above it on the stack. */
function symbols(data, tid) {
  const script = execFileSync('perf', ['script', '-i', data, '--tid', String(tid), '-F', 'ip,sym'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const bySymbol = new Map();
  const byFunction = new Map();
  for (const sample of script.split(/\n\s*\n/)) {
    const frames = sample
      .split('\n')
      .map((l) => l.trim().replace(/^[0-9a-f]+ /, ''))
      .filter(Boolean);
    if (frames.length === 0) continue;
    const sym = frames[0];
    const js = sym.startsWith('JS:') ? '' : (frames.find((f) => f.startsWith('JS:')) ?? '');
    const key = js ? `${sym} < ${js}` : sym;
    bySymbol.set(key, (bySymbol.get(key) ?? 0) + 1);
    // The second table: per JavaScript function with everything it called into, garbage collection apart.
    const gc = frames.find((f) => /Scavenge|MarkCompact|Heap::CollectGarbage|Heap::PerformGarbageCollection/.test(f));
    const fn = gc ? 'garbage collection (main thread)' : sym.startsWith('JS:') ? sym : js || sym;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + 1);
  }
  return { bySymbol, byFunction };
}

/** Samples per thread name of the threads other than the main one. */
function threads(data, pid) {
  const script = execFileSync('perf', ['script', '-i', data, '-F', 'comm,tid', '-G'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  const byName = new Map();
  for (const line of script.split('\n')) {
    const m = /^\s*(.*?)\s+(\d+)\s*$/.exec(line);
    if (!m || Number(m[2]) === pid) continue;
    byName.set(m[1], (byName.get(m[1]) ?? 0) + 1);
  }
  return byName;
}

const bundle = flag('bundle') ? path.resolve(flag('bundle')) : await buildApiServerBundle();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-profile-'));
const servers = [];
const perfs = [];
try {
  for (const [i, c] of [{ name: 'audit off' }, { name: 'recommended policy', policy: recommended }].entries()) {
    const dataDir = path.join(dir, `s${i}`);
    fs.mkdirSync(dataDir);
    const args = auditServerArgs(dataDir, c.policy);
    const server = await startApiServer({ bundle, dataDir, args, nodeArgs: ['--perf-basic-prof-only-functions'], timeoutMs: 60_000 });
    servers.push(server);
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds });
    await createBenchBundle(server.url, dispatcher, creds);
    await dispatcher.close();
    Object.assign(server, {
      ...c,
      data: path.join(dir, `perf-${i}.data`),
      target: { url: `${server.url}${collection}/bench`, tlsOptions: { ca: creds.ca, cert: creds.cert, key: creds.key }, headers: { accept: 'application/json' } },
      requests: 0,
      main: 0,
      others: 0,
    });
  }
  for (const s of servers) await cannon({ ...s.target, duration: 2 }); // warm-up: JIT, connections
  for (const s of servers) {
    const p = spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(hz), '-g', '-o', s.data, '-p', String(s.child.pid)], { stdio: 'ignore' });
    perfs.push(new Promise((resolve) => p.once('exit', resolve)));
    s.perf = p;
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      const before = threadSeconds(s.child.pid);
      const result = await cannon(s.target);
      const after = threadSeconds(s.child.pid);
      if (result.non2xx || result.errors) throw new Error(`${s.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      s.requests += result.requests.total;
      s.main += after.main - before.main;
      s.others += after.others - before.others;
    }
  }
  for (const s of servers) s.perf.kill('SIGINT');
  await Promise.all(perfs);

  const [off, on] = servers;
  const f = (x) => x.toFixed(2);
  const per = (s, seconds) => (seconds * 1e6) / s.requests;
  console.log(`GET of one ClusterTrustBundle, ${rounds} slices each; load average ${os.loadavg()[0].toFixed(2)}`);
  console.log('| CPU per GET (µs, /proc) | main thread | other threads | process |');
  console.log('|---|---:|---:|---:|');
  for (const s of servers) console.log(`| ${s.name} | ${f(per(s, s.main))} | ${f(per(s, s.others))} | ${f(per(s, s.main + s.others))} |`);
  const both = servers.map((s) => symbols(s.data, s.child.pid));
  const usPerGet = (s, samples) => (samples * 1e6) / hz / s.requests;
  const name = (k) => k.replaceAll(`file://${root}/`, '').replaceAll('|', '\\|');
  const table = (tables, heading) => {
    const keys = new Set([...tables[0].keys(), ...tables[1].keys()]);
    const rows = [...keys].map((k) => [k, usPerGet(off, tables[0].get(k) ?? 0), usPerGet(on, tables[1].get(k) ?? 0)]).sort((a, b) => b[2] - b[1] - (a[2] - a[1]));
    console.log(`\n| ${heading}, top ${top} by difference | off µs/GET | on µs/GET | difference |`);
    console.log('|---|---:|---:|---:|');
    for (const [k, a, b] of rows.slice(0, top)) console.log(`| \`${name(k)}\` | ${f(a)} | ${f(b)} | ${f(b - a)} |`);
  };
  const sum = (t, s) => usPerGet(s, [...t.values()].reduce((a, b) => a + b, 0));
  console.log(`\nmain thread, sampled: audit off ${f(sum(both[0].bySymbol, off))} µs a GET, recommended policy ${f(sum(both[1].bySymbol, on))}`);
  table(both.map((t) => t.bySymbol), 'symbol (< the JavaScript function it ran for)');
  table(both.map((t) => t.byFunction), 'JavaScript function with what it called (garbage collection apart)');
  table(servers.map((s) => threads(s.data, s.child.pid)), 'other threads, by name (garbage collection: V8 DefaultWorker; log writes: libuv-worker)');
} finally {
  for (const s of servers) s.perf?.kill('SIGINT');
  await Promise.all(perfs);
  await Promise.all(servers.map((s) => s.stop()));
  // The symbol maps --perf-basic-prof-only-functions wrote (V8 always writes them to /tmp).
  for (const s of servers) fs.rmSync(`/tmp/perf-${s.child.pid}.map`, { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
}
