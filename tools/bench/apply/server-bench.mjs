#!/usr/bin/env node
// Benchmark: server-side apply requests against merge PATCH requests of the same change, on a
// started apiserver over HTTPS keep-alive (issue 9: apply >= 0.6 x merge PATCH in requests/second).
//
//   npx nx run x509:build && node tools/bench/apply/server-bench.mjs \
//       [--duration 3] [--rounds 3] [--connections 16] [--objects 200] [--backend sqlite|memory] [--json]
//       [--only apply-noop,merge-noop] [--cpu-prof DIR]
//
// It bundles apps/apiserver with esbuild (the e2e tests' global setup, same options as the Nx
// build), starts it as a child process with a fresh data directory, creates --objects
// ClusterTrustBundles per scenario by apply (manager `bench`), and drives it with autocannon
// (HTTP/1.1 keep-alive, the admin client certificate), round-robin over the objects:
//   merge-noop     merge PATCH that changes nothing (the object already holds it)
//   apply-noop     apply of the configuration already applied (no write, no new resourceVersion)
//   merge-change   merge PATCH switching spec.trustBundle between two CAs and a label between two values
//   apply-change   apply of the full configuration with the same switch
// The four alternate in --rounds slices of --duration seconds (order rotated per round), so that
// machine load hits them alike; each scenario's figure is its total requests over its total time,
// and requests per CPU-second of the server process (read from /proc), which other jobs on the
// machine hardly move. Ratios: apply-noop / merge-noop and apply-change / merge-change.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, cpuSeconds, root, startApiServer } from '../lib/apiserver-harness.mjs';

const { flag, has } = benchFlags();
const duration = Math.max(1, Number(flag('duration', '3')));
const rounds = Math.max(1, Number(flag('rounds', '3')));
const connections = Math.max(1, Number(flag('connections', '16')));
const cannon = cannonWith({ connections, duration });
const objects = Math.max(1, Number(flag('objects', '200')));
const backend = flag('backend', 'sqlite');
const asJson = has('--json');
// --cpu-prof DIR: the apiserver writes a V8 CPU profile there when it stops (for finding hot spots).
const cpuProfDir = flag('cpu-prof', '');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const applyType = 'application/apply-patch+yaml';
const mergeType = 'application/merge-patch+json';

const x509 = await import(path.join(root, 'packages/x509/dist/index.js')).catch((error) => {
  console.error('cannot load packages/x509/dist/index.js; build first: npx nx run x509:build');
  console.error(String(error));
  process.exit(2);
});

async function main() {
  const bundle = await buildApiServerBundle();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-apply-bench-'));
  log(`bundle: ${path.relative(root, bundle)}; backend ${backend}; ${connections} connections; ${objects} objects per scenario; ${rounds} rounds of ${duration} s; ${os.cpus().length} CPUs`);
  const api = await startApiServer({
    bundle,
    dataDir,
    args: [`--storage-backend=${backend}`, '--v=0'],
    nodeArgs: cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`] : [],
    cwd: root,
    timeoutMs: 60_000,
  });
  try {
    const url = api.url;
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    const tlsOptions = { ca: creds.ca, cert: creds.cert, key: creds.key };
    const dispatcher = new Agent({ connect: tlsOptions, connections: 32 });
    const call = async (method, p, body, contentType) => {
      const res = await request(`${url}${p}`, { method, dispatcher, headers: { 'content-type': contentType, accept: 'application/json' }, body });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
      return JSON.parse(text);
    };

    const pems = [
      (await x509.createCertificateAuthority({ commonName: 'bench-anchor-a' })).certPem,
      (await x509.createCertificateAuthority({ commonName: 'bench-anchor-b' })).certPem,
    ];
    const config = (name, v) =>
      JSON.stringify({
        apiVersion: 'certificates.plat.io/v1alpha1',
        kind: 'ClusterTrustBundle',
        metadata: { name, labels: { bench: 'apply', rev: v ? 'b' : 'a' } },
        spec: { trustBundle: pems[v] },
      });
    const mergeBody = (v) => JSON.stringify({ metadata: { labels: { rev: v ? 'b' : 'a' } }, spec: { trustBundle: pems[v] } });
    const names = (prefix) => Array.from({ length: objects }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

    const scenarios = {
      'merge-noop': { names: names('merge-noop'), type: mergeType, body: () => mergeBody(0) },
      'apply-noop': { names: names('apply-noop'), type: applyType, body: (name) => config(name, 0) },
      'merge-change': { names: names('merge-change'), type: mergeType, body: (_, v) => mergeBody(v) },
      'apply-change': { names: names('apply-change'), type: applyType, body: (name, v) => config(name, v) },
    };

    log(`creating ${4 * objects} objects by apply...`);
    for (const s of Object.values(scenarios)) {
      for (let i = 0; i < s.names.length; i += 25) {
        await Promise.all(s.names.slice(i, i + 25).map((n) => call('PATCH', `${collection}/${n}?fieldManager=bench`, config(n, 0), applyType)));
      }
    }
    // Every merge object also gets its Update entry before timing starts, so that both kinds of
    // object carry two managedFields entries' worth of work from the first timed request.
    for (const prefix of ['merge-noop', 'merge-change']) {
      for (const n of scenarios[prefix].names) await call('PATCH', `${collection}/${n}?fieldManager=bench-merge`, mergeBody(0), mergeType);
    }
    const rvBefore = (await call('GET', `${collection}/${scenarios['apply-noop'].names[0]}`)).metadata.resourceVersion;

    const run = async (name) => {
      const s = scenarios[name];
      // The value each object was last switched to, kept across slices so every request changes it.
      const flips = (s.flips ??= new Map());
      let i = 0;
      const manager = s.type === applyType ? 'bench' : 'bench-merge';
      const before = cpuSeconds(api.child.pid);
      const result = await cannon({
        url,
        tlsOptions,
        requests: [
          {
            method: 'PATCH',
            headers: { 'content-type': s.type, accept: 'application/json' },
            setupRequest: (req) => {
              const objName = s.names[i++ % s.names.length];
              // Each request on an object flips it to the other value (from the stored one).
              const v = ((flips.get(objName) ?? 0) + 1) % 2;
              flips.set(objName, v);
              return { ...req, path: `${collection}/${objName}?fieldManager=${manager}`, body: s.body(objName, v) };
            },
          },
        ],
      });
      return { total: result.requests.total, seconds: result.duration, cpu: cpuSeconds(api.child.pid) - before, non2xx: result.non2xx, errors: result.errors + result.timeouts, p99: result.latency.p99 };
    };

    const totals = Object.fromEntries(Object.keys(scenarios).map((k) => [k, { total: 0, seconds: 0, cpu: 0, non2xx: 0, errors: 0, p99: 0 }]));
    log('warm-up (2 s each)...');
    for (const name of Object.keys(scenarios)) await cannon({ url: `${url}${collection}/${scenarios[name].names[0]}`, tlsOptions, duration: 2, headers: { accept: 'application/json' } });
    const only = flag('only', '');
    const order = only ? only.split(',').filter((k) => k in scenarios) : Object.keys(scenarios);
    for (let r = 0; r < rounds; r++) {
      const rotated = [...order.slice(r % order.length), ...order.slice(0, r % order.length)];
      for (const name of rotated) {
        log(`round ${r + 1}/${rounds}: ${name}...`);
        const res = await run(name);
        const t = totals[name];
        t.total += res.total;
        t.seconds += res.seconds;
        t.cpu += res.cpu;
        t.non2xx += res.non2xx;
        t.errors += res.errors;
        t.p99 = Math.max(t.p99, res.p99);
      }
    }
    const rvAfter = (await call('GET', `${collection}/${scenarios['apply-noop'].names[0]}`)).metadata.resourceVersion;

    const fig = Object.fromEntries(
      Object.entries(totals)
        .filter(([k]) => order.includes(k)).map(([k, t]) => [k, { rps: Math.round(t.total / t.seconds), perCpuSecond: Math.round(t.total / t.cpu), p99ms: t.p99, non2xx: t.non2xx, errors: t.errors, total: t.total }]),
    );
    const ratio = (a, b) => (a && b ? Number((a / b).toFixed(2)) : null);
    const out = {
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg().map((l) => Number(l.toFixed(1))),
      backend,
      connections,
      objects,
      rounds,
      duration,
      results: fig,
      ratios: {
        unchanged: { rps: ratio(fig['apply-noop']?.rps, fig['merge-noop']?.rps), perCpuSecond: ratio(fig['apply-noop']?.perCpuSecond, fig['merge-noop']?.perCpuSecond) },
        changed: { rps: ratio(fig['apply-change']?.rps, fig['merge-change']?.rps), perCpuSecond: ratio(fig['apply-change']?.perCpuSecond, fig['merge-change']?.perCpuSecond) },
        unchangedVsMergeChange: { rps: ratio(fig['apply-noop']?.rps, fig['merge-change']?.rps) },
      },
      unchangedApplyKeptResourceVersion: rvBefore === rvAfter,
    };
    if (asJson) {
      console.log(JSON.stringify(out, null, 2));
    } else {
      const row = (k) => `${k.padEnd(14)} ${String(fig[k].rps).padStart(7)} req/s ${String(fig[k].perCpuSecond).padStart(7)} req/CPU-s  p99 ${String(fig[k].p99ms).padStart(4)} ms  non-2xx ${fig[k].non2xx}  errors ${fig[k].errors}`;
      console.log(`node ${out.node}, ${out.cpus} CPUs, load ${out.loadavg.join(' ')}, backend ${backend}, ${connections} connections`);
      for (const k of Object.keys(fig)) console.log(row(k));
      console.log(`apply unchanged / merge PATCH no-op:   ${out.ratios.unchanged.rps} (req/s)  ${out.ratios.unchanged.perCpuSecond} (req/CPU-s)   target >= 0.6`);
      console.log(`apply changed   / merge PATCH change:  ${out.ratios.changed.rps} (req/s)  ${out.ratios.changed.perCpuSecond} (req/CPU-s)   target >= 0.6`);
      console.log(`apply unchanged / merge PATCH change:  ${out.ratios.unchangedVsMergeChange.rps} (req/s)`);
      console.log(`unchanged apply kept its resourceVersion: ${out.unchangedApplyKeptResourceVersion}`);
    }
    const failed = Object.values(fig).some((f) => f.non2xx || f.errors) || !out.unchangedApplyKeptResourceVersion;
    if (failed) {
      console.error('some requests failed or an unchanged apply wrote: the figures are not valid');
      process.exitCode = 1;
    }
  } finally {
    await api.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
