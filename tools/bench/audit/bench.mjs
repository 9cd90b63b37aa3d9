#!/usr/bin/env node
// What auditing costs the apiserver: GET of one ClusterTrustBundle and CREATE of small bundles,
// with audit off, with the recommended policy of docs/audit.md and the log backend in batch mode,
// and with RequestResponse for every request (reported, not a target). The three servers run at
// once from the same bundle and take turns, round by round, so the machine's drift hits all alike;
// the figures are requests per server CPU-second, as ratios of audit off (median and range over
// the rounds). A fourth server, audit off with a busy-wait of `--control-us` microseconds before
// every request (../lib/busy-wait.mjs; 0: none), is the control: what a known amount of CPU a
// request costs in these figures, measured alongside (GETs only).
//
//   node tools/bench/audit/bench.mjs [--rounds 5] [--duration 3] [--connections 16]
//                                    [--creates 300] [--concurrency 4] [--control-us 2.5]
//                                    [--bundle main.mjs] [--pin]
//
// Targets (issue 27): GET ≥ 0.9× off, CREATE ≥ 0.85× off with the recommended policy.
// The CREATE slice waits 300 ms after its last answer before reading the CPU, so the events
// written off the request path (batch mode) are in the figure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, cpuSeconds, createBenchBundle, measuredSlice, pinning, startApiServer } from '../lib/apiserver-harness.mjs';
import { auditServerArgs, recommendedPolicy } from './policy.mjs';

const { flag, has } = benchFlags();
const rounds = Number(flag('rounds', '5'));
const creates = Number(flag('creates', '300'));
const concurrency = Number(flag('concurrency', '4'));
const cannon = cannonWith({ connections: Number(flag('connections', '16')), duration: Number(flag('duration', '3')) });
const pin = has('--pin');
const controlUs = Number(flag('control-us', '2.5'));
const bundle = flag('bundle') ? path.resolve(flag('bundle')) : await buildApiServerBundle();
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

const recommended = recommendedPolicy();
const everything = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n';

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `creates` stored creates, `concurrency` at a time; server CPU until 300 ms after the last; then deleted (not measured). */
async function createSlice(s, round) {
  const cpu = cpuSeconds(s.child.pid);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < creates) {
        const name = `bench-${round}-${next++}`;
        const body = JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle: s.creds.ca } });
        const res = await request(`${s.url}${collection}`, { method: 'POST', dispatcher: s.dispatcher, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`);
      }
    }),
  );
  await sleep(300);
  const used = cpuSeconds(s.child.pid) - cpu;
  for (let i = 0; i < creates; i++) {
    const res = await request(`${s.url}${collection}/bench-${round}-${i}`, { method: 'DELETE', dispatcher: s.dispatcher });
    await res.body.dump();
  }
  return creates / used;
}

if (pin) pinning.loadGenerator();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-'));
const configs = [
  { name: 'audit off' },
  { name: 'recommended policy, log batch', policy: recommended },
  { name: 'RequestResponse for all, log batch', policy: everything },
];
if (controlUs > 0) {
  const busyWait = new URL(`../lib/busy-wait.mjs?us=${controlUs}`, import.meta.url);
  configs.push({ name: `audit off, ${controlUs} µs busy-wait a request (control)`, control: true, nodeArgs: ['--import', busyWait.href] });
}
const servers = [];
try {
  for (const [i, c] of configs.entries()) {
    const dataDir = path.join(dir, `s${i}`);
    fs.mkdirSync(dataDir);
    const args = auditServerArgs(dataDir, c.policy);
    const server = await startApiServer({ bundle, dataDir, args, nodeArgs: c.nodeArgs });
    servers.push(server);
    if (pin) pinning.server(server.child.pid);
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds });
    await createBenchBundle(server.url, dispatcher, creds);
    Object.assign(server, {
      ...c,
      creds,
      dispatcher,
      target: { url: `${server.url}${collection}/bench`, tlsOptions: { ca: creds.ca, cert: creds.cert, key: creds.key }, headers: { accept: 'application/json' } },
      get: [],
      create: [],
    });
  }
  // Warm-up: JIT, connections, the first log writes.
  for (const s of servers) {
    await cannon({ ...s.target, duration: 1 });
    if (!s.control) await createSlice(s, 'warm');
  }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...servers].reverse() : servers;
    for (const s of order) {
      await sleep(500);
      const slice = await measuredSlice(cannon, s.child.pid, s.target);
      if (slice.non2xx || slice.errors) throw new Error(`${s.name}: ${slice.non2xx} non-2xx, ${slice.errors} errors`);
      s.get.push(slice.total / slice.cpu);
    }
    for (const s of order) {
      if (s.control) continue;
      await sleep(500);
      s.create.push(await createSlice(s, r));
    }
  }
  const off = servers[0];
  const fmt = (v) => `${median(v).toFixed(0)} [${Math.min(...v).toFixed(0)}–${Math.max(...v).toFixed(0)}]`;
  const ratio = (s, key) => {
    const v = s[key].map((x, i) => x / off[key][i]);
    return `${median(v).toFixed(3)} [${Math.min(...v).toFixed(3)}–${Math.max(...v).toFixed(3)}]`;
  };
  console.log(`| configuration | GET req per CPU-second | ÷ off | CREATE per CPU-second | ÷ off |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const s of servers) {
    const create = s.control ? '— | —' : `${fmt(s.create)} | ${s === off ? '1' : ratio(s, 'create')}`;
    console.log(`| ${s.name} | ${fmt(s.get)} | ${s === off ? '1' : ratio(s, 'get')} | ${create} |`);
  }
  // What auditing adds to a GET, in server CPU microseconds (per round: on less off, then the median).
  const added = (s) => s.get.map((x, i) => 1e6 / x - 1e6 / off.get[i]);
  const extraUs = (s) => {
    const v = added(s);
    return `${median(v).toFixed(1)} [${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)}]`;
  };
  console.log(`GET CPU µs added (on − off per round): ${servers.slice(1).map((s) => `${s.name} ${extraUs(s)}`).join('; ')}; audit off ${median(off.get.map((x) => 1e6 / x)).toFixed(1)} µs a GET; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const control = servers.find((s) => s.control);
  if (control) {
    // The control's added µs against what it busy-waits: how much a µs of request CPU weighs here;
    // the recommended policy's added µs in those terms (medians of the rounds).
    const controlAdded = median(added(control));
    const auditAdded = median(added(servers[1]));
    console.log(`control: ${controlUs} µs of busy-wait a request measured as ${controlAdded.toFixed(1)} µs (×${(controlAdded / controlUs).toFixed(2)}); the recommended policy's ${auditAdded.toFixed(1)} µs weigh as ${((auditAdded * controlUs) / controlAdded).toFixed(1)} µs of busy-wait a GET`);
  }
  const logBytes = servers.filter((s) => s.policy).map((s) => fs.statSync(path.join(dir, `s${servers.indexOf(s)}`, 'audit.log')).size);
  console.log(`median [range] of ${rounds} rounds; GET: autocannon slices; CREATE: ${creates} stored creates at concurrency ${concurrency} a slice; audit log bytes written: ${logBytes.join(', ')}`);
} finally {
  await Promise.all(
    servers.map(async (s) => {
      await s.dispatcher?.close();
      await s.stop();
    }),
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
