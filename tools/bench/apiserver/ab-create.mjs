#!/usr/bin/env node
// A/B comparison of two builds of the apiserver on creating ClusterTrustBundles of many anchors
// (ab.mjs does the same for GET): what validation, expiry warnings and the write path cost per
// create. Both servers run at once with the same flags and take turns, slice by slice, so that the
// machine's drift hits both alike; the figure to read is B's server CPU per create as a ratio of A's.
//
//   node tools/bench/apiserver/ab-create.mjs --a base.mjs --b new.mjs [--anchors 100] [--pool 110] [--store]
//                                            [--rounds 6] [--concurrency 4] [--args "--storage-backend=memory"]
//
// Each slice POSTs every bundle of a pool once with dryRun=All (all of a create but the write, so
// the share of per-anchor work is the largest it can be; nothing accumulates in storage). With
// --store the creates are stored, and the slice's CPU includes what they set off in the server
// after the answer (watch events: the metrics feed) until 300 ms after the last one; the bundles
// are deleted between slices, outside the measurement. The pool
// holds `pool` bundles of `anchors` distinct CA certificates: 110 x 100 = 11,000 certificates, more
// than @plat/x509 caches (10,000), so that every create parses its anchors anew, as a create of
// new anchors does. Bundles: see ab.mjs for building one per commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, cpuSeconds, root, startApiServer } from '../lib/apiserver-harness.mjs';

const { flag } = benchFlags();
const builds = { A: flag('a'), B: flag('b') };
if (!builds.A || !builds.B) throw new Error('--a and --b: the two apiserver bundles to compare');
const args = flag('args', '--storage-backend=memory').split(' ').filter(Boolean);
const rounds = Number(flag('rounds', '6'));
const anchors = Number(flag('anchors', '100'));
const poolSize = Number(flag('pool', '110'));
const concurrency = Number(flag('concurrency', '4'));
const store = process.argv.includes('--store');
const query = store ? '' : '?dryRun=All';
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

const x509 = await import(path.join(root, 'packages/x509/dist/index.js')).catch(() => {
  console.error('cannot load packages/x509/dist/index.js; build first: npx nx run x509:build');
  process.exit(2);
});
const started = Date.now();
const bodies = [];
for (let b = 0; b < poolSize; b++) {
  let pem = '';
  for (let i = 0; i < anchors; i++) pem += (await x509.createCertificateAuthority({ commonName: `bench-${b}-${i}` })).certPem;
  bodies.push(JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: `bench-create-${b}` }, spec: { trustBundle: pem } }));
}
console.error(`${poolSize} bundles of ${anchors} anchors made in ${((Date.now() - started) / 1000).toFixed(0)} s`);

/** POSTs the whole pool to one server, `concurrency` at a time; answers the server's CPU seconds and the wall time. */
async function slice(server) {
  const cpu = cpuSeconds(server.child.pid);
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await request(`${server.url}${collection}${query}`, { method: 'POST', dispatcher: server.dispatcher, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (!store) return { cpu: cpuSeconds(server.child.pid) - cpu, seconds };
  await new Promise((resolve) => setTimeout(resolve, 300));
  const used = cpuSeconds(server.child.pid) - cpu;
  for (let b = 0; b < bodies.length; b++) {
    const res = await request(`${server.url}${collection}/bench-create-${b}`, { method: 'DELETE', dispatcher: server.dispatcher });
    await res.body.dump();
  }
  return { cpu: used, seconds };
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-ab-create-'));
const servers = [];
try {
  for (const [name, bundle] of Object.entries(builds)) {
    const dataDir = path.join(dir, name);
    const server = await startApiServer({ bundle: path.resolve(bundle), dataDir, args });
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    servers.push(Object.assign(server, { name, dispatcher: new Agent({ connect: creds }), runs: [] }));
  }
  for (const s of servers) await slice(s); // warm-up (JIT, connections)
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      s.runs.push(await slice(s));
    }
  }
  const perCreate = (s) => s.runs.map((x) => (1e3 * x.cpu) / bodies.length);
  const [a, b] = servers.map(perCreate);
  const ratios = a.map((x, i) => b[i] / x);
  console.log(`| build | ms server CPU per create (median [range] of ${rounds} slices of ${bodies.length}) |`);
  console.log('|---|---:|');
  for (const [s, v] of [[servers[0], a], [servers[1], b]]) {
    console.log(`| ${s.name} ${path.basename(builds[s.name])} | ${median(v).toFixed(2)} [${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}] |`);
  }
  console.log(`B ÷ A per round: ${ratios.map((x) => x.toFixed(3)).join(' ')}; median ${median(ratios).toFixed(3)}; ${anchors} anchors per bundle, ${store ? 'stored' : 'dryRun=All'}; args: ${args.join(' ')}`);
} finally {
  await Promise.all(servers.map(async (s) => {
    await s.dispatcher.close();
    await s.stop();
  }));
  fs.rmSync(dir, { recursive: true, force: true });
}
