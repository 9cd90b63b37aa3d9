#!/usr/bin/env node
// Where a GET's CPU goes as the kernel's sampler sees it (Linux `perf`), for the apiserver and the
// bare node:https server under the same closed-loop load, one after the other: CPU per request
// from /proc split by what ran (kernel, OpenSSL, V8's builtins, JIT code, V8's runtime and
// compiler, node's C++ and libuv, libc), the part of it under the response's write
// (StreamBase::Writev: TLS encryption and the write system call), and system calls, page faults
// and context switches per request. Then the same CPU by symbol (the leaf frame's), for every
// group but the kernel and OpenSSL, sorted by how much more the apiserver spends on it than the
// bare server: which builtins (megamorphic inline caches, promises, async functions), runtime
// functions (string hashing and flattening) and node C++ calls make the difference, and which
// JIT-compiled functions (ours by name) run longest.
//
//   node tools/bench/apiserver/perf-native.mjs [--duration 5] [--warmup 10] [--connections 32] [--frequency 999]
//                                              [--bundle B] [--top 40] [--callers REGEX]
//
// --callers: for the leaf symbols matching REGEX (e.g. 'RegExpExec|CompileLazy'), the apiserver's
// stacks above them, cut to their first four named frames, with CPU per GET: which of our
// functions call into a builtin or the runtime.
//
// Why next to profile.mjs: V8's sampler (--cpu-prof) takes its samples on a wall-clock timer, so
// a server that waits for a CPU, or is preempted by the load generator it just woke with its
// write, has that time charged to the function on top of its stack, which for a response is
// `writev`. perf samples CPU time (the cpu-clock event), per thread, so its split is of the
// CPU the server used. Needs `perf` (Debian: linux-perf) and permission to profile a process
// this user started (kernel.perf_event_paranoid ≤ 1, or root).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchFlags, buildApiServerBundle, cannonWith, root, seedBenchTarget, startApiServer, startBareServer } from '../lib/apiserver-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { flag } = benchFlags();
const duration = Number(flag('duration', '5'));
const warmup = Number(flag('warmup', '10'));
const frequency = flag('frequency', '999');
const top = Number(flag('top', '40'));
const callers = flag('callers', undefined) && new RegExp(flag('callers'));
const cannon = cannonWith({ connections: Number(flag('connections', '32')), duration });
const getPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench-get';

try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('perf-native.mjs needs `perf` (Debian: linux-perf); not found, nothing measured');
  process.exit(2);
}

/** CPU seconds, read/write system calls, minor page faults and context switches of a process so far. */
function counters(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const io = Object.fromEntries(
    fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n').map((l) => l.split(': ')).map(([k, v]) => [k, Number(v)]),
  );
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)[1]);
  return {
    cpu: (Number(f[11]) + Number(f[12])) / 100,
    syscalls: io.syscr + io.syscw,
    faults: Number(f[7]),
    preempted: field('nonvoluntary_ctxt_switches'),
  };
}

/** What a sample's leaf frame is: its library and symbol, sorted into the groups of the table. */
function groupOf(dso, sym) {
  if (dso.includes('kernel')) return 'kernel';
  if (dso.includes('libc')) return 'libc (malloc, memcpy, system call stubs)';
  if (dso.includes('JIT') || dso.startsWith('/tmp/perf-')) return 'JIT code (our JavaScript and node\'s)';
  if (sym.startsWith('Builtins_')) return 'V8 builtins (promises, ICs, strings)';
  if (/v8::internal::compiler|Maglev|Turbofan/.test(sym)) return 'V8 compiler';
  if (/v8::internal::(Heap|Scavenger|MarkCompact|.*GC)|Sweeper|Evacuat/.test(sym)) return 'V8 garbage collector';
  if (/v8::/.test(sym)) return 'V8 runtime and API';
  if (/ssl|SSL|aes|gcm|EVP|BIO|OPENSSL|ossl|CRYPTO|sha\d|ghash|tls1/.test(sym)) return 'OpenSSL';
  return 'node C++ and libuv';
}

/**
 * A leaf symbol as one row: JIT code without its address and tier marker (`LazyCompile:*f
 * file:1:2` and `JS:~f` are one function), C++ without its argument list.
 */
function symbolName(sym) {
  const js = /^(?:LazyCompile|Function|JS|Script):[*~^+]?(.*)$/.exec(sym);
  if (js) return `JS ${js[1]}`;
  return sym.replace(/\(.*\)( const)?$/, '');
}

/** Samples of a perf.data file: each with its stack (leaf first) as `symbol dso` lines. */
function samples(file) {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'ip,sym,dso'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  return text
    .split('\n\n')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) =>
      s.split('\n').map((line) => {
        const m = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)\s*$/.exec(line);
        return m ? { sym: m[1].replace(/\+0x[0-9a-f]+$/, ''), dso: m[2] } : { sym: line.trim(), dso: '' };
      }),
    );
}

async function measure(name, pid, target) {
  await cannon({ ...target, duration: warmup });
  const file = path.join(os.tmpdir(), `plat-perf-native-${name}-${process.pid}.data`);
  const before = counters(pid);
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', frequency, '-g', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  const result = await cannon(target);
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
  const after = counters(pid);
  const n = result.requests.total;
  const cpuUs = (1e6 * (after.cpu - before.cpu)) / n;
  const all = samples(file);
  fs.rmSync(file, { force: true });
  const groups = new Map();
  const symbols = new Map();
  let underWrite = 0;
  let underWriteSyscall = 0;
  for (const stack of all) {
    const g = groupOf(stack[0].dso, stack[0].sym);
    groups.set(g, (groups.get(g) ?? 0) + 1);
    if (g !== 'kernel' && g !== 'OpenSSL') {
      const key = `${symbolName(stack[0].sym)}\t${g}`;
      symbols.set(key, (symbols.get(key) ?? 0) + 1);
    }
    if (stack.some((f) => f.sym.includes('StreamBase::Writev') || f.sym.includes('StreamBase::WriteBuffer') || f.sym.includes('WriteString'))) {
      underWrite++;
      if (stack.some((f) => /^(__GI___libc_write|__libc_write|write|writev|__writev)$/.test(f.sym))) underWriteSyscall++;
    }
  }
  const share = (k) => (cpuUs * k) / all.length;
  const callerStacks = new Map();
  if (callers) {
    for (const stack of all) {
      if (!callers.test(stack[0].sym)) continue;
      const named = stack.filter((f) => f.sym && f.sym !== '[unknown]').slice(0, 5).map((f) => symbolName(f.sym).replace(/ file:\/\/\S*\/([^/\s]+)$/, ' $1'));
      const key = named.join(' ← ');
      callerStacks.set(key, (callerStacks.get(key) ?? 0) + 1);
    }
  }
  return {
    name,
    requests: n,
    cpuUs,
    groups: new Map([...groups].map(([k, v]) => [k, share(v)])),
    symbols: new Map([...symbols].map(([k, v]) => [k, share(v)])),
    callerStacks: new Map([...callerStacks].map(([k, v]) => [k, share(v)])),
    underWrite: share(underWrite),
    underWriteSyscall: share(underWriteSyscall),
    syscalls: (after.syscalls - before.syscalls) / n,
    faults: (after.faults - before.faults) / n,
    preempted: (after.preempted - before.preempted) / n,
    samples: all.length,
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-perf-native-'));
let api;
let bare;
const results = [];
try {
  const bundle = flag('bundle', undefined) ? path.resolve(flag('bundle')) : await buildApiServerBundle();
  api = await startApiServer({ bundle, dataDir, nodeArgs: ['--perf-basic-prof-only-functions'], args: ['--storage-backend=sqlite', '--v=0'], cwd: root, timeoutMs: 60_000 });
  const { tlsOptions, target, serving } = await seedBenchTarget(api, dataDir, getPath);
  results.push(await measure('apiserver', api.child.pid, target));
  await api.stop();
  api = undefined;
  bare = startBareServer(path.join(here, 'bare-server.mjs'), serving, ['--perf-basic-prof-only-functions']);
  const port = await bare.port;
  results.push(await measure('bare', bare.pid, { url: `https://127.0.0.1:${port}${getPath}`, tlsOptions }));
} finally {
  await api?.stop();
  await bare?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const [a, b] = results;
const us = (x) => (x ?? 0).toFixed(1);
console.log(`GET of one ClusterTrustBundle, ${duration} s after ${warmup} s of warm-up; load average ${os.loadavg()[0].toFixed(1)}`);
console.log(`requests: apiserver ${a.requests}, bare ${b.requests}; perf samples ${a.samples} and ${b.samples}\n`);
console.log('| CPU per GET (perf, leaf frame) | apiserver µs | bare node:https µs |');
console.log('|---|---:|---:|');
const names = [...new Set([...a.groups.keys(), ...b.groups.keys()])].sort((x, y) => (a.groups.get(y) ?? 0) - (a.groups.get(x) ?? 0));
for (const g of names) console.log(`| ${g} | ${us(a.groups.get(g))} | ${us(b.groups.get(g))} |`);
console.log(`| **total** (/proc) | **${us(a.cpuUs)}** | **${us(b.cpuUs)}** |`);
console.log(`| under the response's write (Writev) | ${us(a.underWrite)} | ${us(b.underWrite)} |`);
console.log(`| of it, the write system call | ${us(a.underWriteSyscall)} | ${us(b.underWriteSyscall)} |`);
console.log(`| read and write system calls per GET | ${a.syscalls.toFixed(2)} | ${b.syscalls.toFixed(2)} |`);
console.log(`| minor page faults per GET | ${a.faults.toFixed(3)} | ${b.faults.toFixed(3)} |`);
console.log(`| preemptions per GET | ${a.preempted.toFixed(3)} | ${b.preempted.toFixed(3)} |`);

console.log(`\n| CPU per GET by leaf symbol (perf; kernel and OpenSSL left out), the ${top} largest differences | group | apiserver µs | bare µs | difference |`);
console.log('|---|---|---:|---:|---:|');
const keys = [...new Set([...a.symbols.keys(), ...b.symbols.keys()])];
const diff = (k) => (a.symbols.get(k) ?? 0) - (b.symbols.get(k) ?? 0);
for (const k of keys.sort((x, y) => Math.abs(diff(y)) - Math.abs(diff(x))).slice(0, top)) {
  const [sym, g] = k.split('\t');
  console.log(`| \`${sym.replaceAll('|', '\\|')}\` | ${g.split(' (')[0]} | ${(a.symbols.get(k) ?? 0).toFixed(2)} | ${(b.symbols.get(k) ?? 0).toFixed(2)} | ${diff(k) >= 0 ? '+' : ''}${diff(k).toFixed(2)} |`);
}

if (callers) {
  console.log(`\n| apiserver stacks under leaf symbols matching /${callers.source}/ (leaf first) | µs per GET |`);
  console.log('|---|---:|');
  for (const [k, v] of [...a.callerStacks].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`| ${k.replaceAll('|', '\\|')} | ${v.toFixed(2)} |`);
}
