#!/usr/bin/env node
// A/B comparison of two builds of the apiserver on GET of one ClusterTrustBundle: the way to
// tell whether a change made the server cheaper on a machine whose speed drifts by ±25 % between
// runs. Both servers run at once with the same flags and take turns, slice by slice, so drift
// hits both alike; the figure to read is the CPU per request of B as a ratio of A.
//
//   node tools/bench/apiserver/ab.mjs --a base.mjs --b new.mjs [--args "--storage-backend=memory ..."]
//                                     [--rounds 6] [--duration 3] [--connections 16] [--pin] [--list N]
//
// --list N compares a LIST of N ClusterTrustBundles instead (each server seeded with N objects
// labelled `bench=list` beside the GET's, listed with `labelSelector=bench=list`, as bench.mjs's).
//
// --pin (Linux, taskset): the servers on CPU 0, this process (autocannon) on the others, so that
// the server under test never waits for the load generator's CPU; steadier on a 2-core machine.
//
// A bundle is what the e2e global setup builds from the checked-out tree; to make one per commit:
//   git checkout <rev> && node -e "import('./apps/apiserver/test/global-setup.mjs').then((m) => m.default())" \
//     && cp apps/apiserver/node_modules/.cache/plat-e2e/main.mjs apps/apiserver/node_modules/.cache/plat-e2e/<name>.mjs
// (beside main.mjs, so that its external packages, better-sqlite3 and etcd3, still resolve).
// `--args` may name files (a --tracing-config-file with a receiver, for example); start what they
// point at yourself (tools/bench/tracing/receiver.mjs prints its port).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { adminCredentials, benchFlags, cannonWith, createBenchBundle, measuredSlice, mergeSlices, pinning, seedObjects, startApiServer } from '../lib/apiserver-harness.mjs';

const { flag } = benchFlags();
const builds = { A: flag('a'), B: flag('b') };
if (!builds.A || !builds.B) throw new Error('--a and --b: the two apiserver bundles to compare');
const args = flag('args', '--storage-backend=memory').split(' ').filter(Boolean);
const rounds = Number(flag('rounds', '6'));
const cannon = cannonWith({ connections: Number(flag('connections', '16')), duration: Number(flag('duration', '3')) });
const pin = process.argv.includes('--pin');
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const listSize = Number(flag('list', '0'));
const what = listSize ? `LIST of ${listSize}` : 'GET';

if (pin) pinning.loadGenerator();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-ab-'));
const servers = [];
try {
  for (const [name, bundle] of Object.entries(builds)) {
    const dataDir = path.join(dir, name);
    const server = await startApiServer({ bundle: path.resolve(bundle), dataDir, args });
    servers.push(server);
    if (pin) pinning.server(server.child.pid);
    const url = server.url;
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds });
    await createBenchBundle(url, dispatcher, creds);
    if (listSize) await seedObjects(url, dispatcher, creds.ca, { count: listSize, name: (i) => `bench-list-${String(i).padStart(4, '0')}`, labels: { bench: 'list' } });
    await dispatcher.close();
    const target = listSize ? `${collection}?labelSelector=bench%3Dlist` : `${collection}/bench`;
    Object.assign(server, { name, target: { url: `${url}${target}`, tlsOptions: { ca: creds.ca, cert: creds.cert, key: creds.key }, headers: { accept: 'application/json' } }, runs: [] });
  }
  for (const s of servers) await cannon({ ...s.target, duration: 1 });
  for (let r = 0; r < rounds; r++) {
    // A then B, then B then A: each follows the other equally often.
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      s.runs.push(await measuredSlice(cannon, s.child.pid, s.target));
    }
  }
  const [a, b] = servers.map((s) => ({ ...mergeSlices(s.runs), perRound: s.runs.map((x) => (1e6 * x.cpu) / x.total) }));
  console.log(`| build | ${what} req/s | µs CPU per request | per round |`);
  console.log('|---|---:|---:|---|');
  for (const [name, m] of [['A', a], ['B', b]]) {
    console.log(`| ${name} ${path.basename(builds[name])} | ${m.rps} | ${(1e6 / m.perCpuSecond).toFixed(1)} | ${m.perRound.map((x) => x.toFixed(0)).join(' ')} |`);
  }
  console.log(`B ÷ A: CPU per request ${(a.perCpuSecond / b.perCpuSecond).toFixed(3)}, req/s ${(b.rps / a.rps).toFixed(3)}; args: ${args.join(' ')}`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
}
