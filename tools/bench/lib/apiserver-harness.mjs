// What the benchmarks that drive a started apiserver share: command-line flags, the CPU time of a
// process from /proc, CPU pinning and autocannon runs. The bundle of apps/apiserver, the server as
// a child process and the admin credentials from its admin.conf come from the end-to-end tests'
// harness (tools/e2e/apiserver-process.mjs), re-exported here: one way to start it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';

import { adminCredentials, startApiServer } from '../../e2e/apiserver-process.mjs';

export { adminCredentials, startApiServer };
export { buildApiServerBundle } from '../../../apps/apiserver/test/apiserver-process.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `--name value` flags of this process, with defaults; `has('--json')` for bare switches. */
export function benchFlags(args = process.argv.slice(2)) {
  return {
    flag(name, dflt) {
      const i = args.indexOf(`--${name}`);
      return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
    },
    has: (name) => args.includes(name),
  };
}

/**
 * Creates the ClusterTrustBundle `name` (the dev PKI's CA certificate: a valid trust anchor) with
 * the admin credentials, for a benchmark to GET; throws unless the answer is 201.
 */
export async function createBenchBundle(url, dispatcher, creds, name = 'bench') {
  const res = await request(`${url}/apis/certificates.plat.io/v1alpha1/clustertrustbundles`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle: creds.ca } }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`create of ${name} failed: ${res.statusCode} ${text}`);
}

/**
 * Creates `count` ClusterTrustBundles named `name(i)`, 50 requests at a time (how the benchmarks
 * seed the list), each trusting `trustBundle`; throws on the first answer that is not 201.
 */
export async function seedObjects(url, dispatcher, trustBundle, { count, name, labels }) {
  const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async (_, j) => {
        const metadata = { name: name(i + j), ...(labels ? { labels } : {}) };
        const body = { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata, spec: { trustBundle } };
        const res = await request(`${url}${collection}`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`create ${metadata.name}: ${res.statusCode} ${text}`);
      }),
    );
  }
}

/**
 * The closed-loop GET maximum as the benchmarks measure it (autocannon, 32 connections, 3 s of
 * warm-up, then 5 runs of 2 s): requests per second over the 5 runs.
 */
export async function closedLoopGetRate(target) {
  const cannon = cannonWith({ connections: 32, duration: 2 });
  await cannon({ ...target, duration: 3 });
  let total = 0;
  let seconds = 0;
  for (let i = 0; i < 5; i++) {
    const r = await cannon(target);
    total += r.requests.total;
    seconds += r.duration;
  }
  return total / seconds;
}

/**
 * `--pin` of the benchmarks (Linux, taskset): servers (all their threads, or only the main one) on
 * CPU 0, the load generator (this process and the children it starts afterwards) on the other
 * CPUs, as if it ran on a machine of its own. Unpinned, the scheduler often runs a server and its
 * load generator on one CPU (they wake each other on every request, and a woken task is placed
 * near its waker), which queues requests there while the other CPU idles.
 */
export const pinning = {
  /** This process, and what it starts from now on, off CPU 0 (no-op on one CPU). */
  loadGenerator() {
    const cpus = os.cpus().length;
    if (cpus > 1) execFileSync('taskset', ['-pc', `1-${cpus - 1}`, String(process.pid)], { stdio: 'ignore' });
  },
  /** Every thread of a started server onto CPU 0. */
  server(pid) {
    execFileSync('taskset', ['-a', '-pc', '0', String(pid)], { stdio: 'ignore' });
  },
  /**
   * Only the JavaScript (main) thread of a started server onto CPU 0: its helper threads (V8's
   * garbage collector and compilers, libuv's pool) may run on any CPU, as on a machine of its own,
   * instead of queueing behind the main thread on CPU 0.
   */
  serverMainThread(pid) {
    // First every thread onto every CPU (a server started after loadGenerator() inherited its
    // CPUs), then the main thread alone onto CPU 0. (Counted with os.cpus(): availableParallelism
    // counts only the CPUs this thread may use, one after loadGenerator().)
    execFileSync('taskset', ['-a', '-pc', `0-${os.cpus().length - 1}`, String(pid)], { stdio: 'ignore' });
    execFileSync('taskset', ['-pc', '0', String(pid)], { stdio: 'ignore' });
  },
  /**
   * A `--pin` flag's value, checked: `none`, `main` (servers' main threads on CPU 0) or `all`
   * (every server thread on CPU 0); throws on anything else, or on a pinned mode where pinning
   * cannot work.
   */
  mode(value) {
    if (!['main', 'all', 'none'].includes(value)) throw new Error(`--pin: expected main, all or none, got ${value ? value : 'no value'}`);
    if (value !== 'none' && !pinning.available()) throw new Error('--pin needs Linux, taskset and 2 CPUs or more');
    return value;
  },
  /** Pins a started server as `mode` (from `mode()`) says; nothing for `none`. */
  serverAs(mode, pid) {
    if (mode === 'main') pinning.serverMainThread(pid);
    else if (mode === 'all') pinning.server(pid);
  },
  /** Whether pinning can work here: Linux with taskset and more than one CPU. */
  available() {
    if (os.cpus().length < 2) return false;
    try {
      execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * CPU seconds that the hypervisor gave to other guests while this virtual machine had work to
 * run ("steal", summed over all CPUs, from /proc/stat), so far; NaN where unknown.
 */
export function stealSeconds() {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    return Number(cpu[8]) / 100;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s).
 * Requests per CPU-second compare servers fairly even when other jobs load the machine.
 */
export function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** An autocannon runner with default connections and duration (seconds), printing nothing. */
export function cannonWith({ connections, duration }) {
  return (opts) =>
    new Promise((resolve, reject) => {
      const instance = autocannon({ connections, pipelining: 1, duration, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
      autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: new (class { write() {} })() });
    });
}

/** One autocannon slice against the process `pid`: requests, seconds, CPU seconds used, failures, p99. */
export async function measuredSlice(cannon, pid, opts) {
  const before = cpuSeconds(pid);
  const result = await cannon(opts);
  return { total: result.requests.total, seconds: result.duration, cpu: cpuSeconds(pid) - before, non2xx: result.non2xx, errors: result.errors + result.timeouts, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Slices of one server as one figure: requests/s and per CPU-second over all, worst p50 and p99, summed failures. */
export function mergeSlices(runs) {
  const total = runs.reduce((n, x) => n + x.total, 0);
  const seconds = runs.reduce((n, x) => n + x.seconds, 0);
  const cpu = runs.reduce((n, x) => n + x.cpu, 0);
  return {
    rps: Math.round(total / seconds),
    perCpuSecond: Math.round(total / cpu),
    p50ms: Math.max(...runs.map((x) => x.p50)),
    p99ms: Math.max(...runs.map((x) => x.p99)),
    non2xx: runs.reduce((n, x) => n + x.non2xx, 0),
    errors: runs.reduce((n, x) => n + x.errors, 0),
    total,
  };
}

/**
 * Starts a bare server (`bare-server.mjs`, `bare-variant-server.mjs`): it reads `input` (what it
 * serves) as JSON on stdin and prints its port. `nodeArgs` go before the script.
 */
export function startBareServer(script, input, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin.end(JSON.stringify(input));
  const port = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`${path.basename(script)} exited with ${code}`)));
  });
  return { child, pid: child.pid, port, stop: async () => (child.kill('SIGTERM'), await exited) };
}

/** What a bare server needs to answer as the apiserver of `dataDir` did: its serving certificate and key, the CA, and one answer's body and content type. */
export function bareServing(dataDir, ca, res, body) {
  return {
    cert: fs.readFileSync(path.join(dataDir, 'pki/apiserver.crt'), 'utf8'),
    key: fs.readFileSync(path.join(dataDir, 'pki/apiserver.key'), 'utf8'),
    ca,
    body,
    contentType: res.headers['content-type'],
  };
}

/**
 * Seeds a started apiserver (`dataDir` its data directory) with the object `bench-get` and, with
 * `listSize`, that many objects labelled `bench=list`, then reads `getPath` once: the admin's TLS
 * options, the GET target, and what a bare server needs to answer the same bytes.
 */
export async function seedBenchTarget(api, dataDir, getPath, { listSize = 0 } = {}) {
  const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
  const tlsOptions = { ca: creds.ca, cert: creds.cert, key: creds.key };
  const dispatcher = new Agent({ connect: tlsOptions });
  try {
    await seedObjects(api.url, dispatcher, creds.ca, { count: 1, name: () => 'bench-get' });
    if (listSize) await seedObjects(api.url, dispatcher, creds.ca, { count: listSize, name: (i) => `bench-list-${i}`, labels: { bench: 'list' } });
    const res = await request(`${api.url}${getPath}`, { dispatcher, headers: { accept: 'application/json' } });
    const body = await res.body.text();
    return { tlsOptions, target: { url: `${api.url}${getPath}`, tlsOptions, headers: { accept: 'application/json' } }, serving: bareServing(dataDir, creds.ca, res, body) };
  } finally {
    await dispatcher.close();
  }
}
