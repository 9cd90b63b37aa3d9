#!/usr/bin/env node
// Benchmark: the server-side apply engine of @plat/patch against what a merge PATCH costs the
// same layer.
//
//   npx nx run patch:build && node tools/bench/apply/bench.mjs [--rounds N] [--json]
//
// On a ClusterTrustBundle with two managers (an applier and an updater) it times, in the same
// process and interleaved round by round:
//   baseline   applyMergePatch(live, patch) + recordUpdate(...)   (a merge PATCH's patch and
//              managedFields work)
//   unchanged  apply(...) of the configuration already applied (no change)
//   changed    apply(...) of a configuration with another trustBundle and one more label
//   pruning    the same, with a label the applier set before left out (the prune path)
// and prints operations/second and the ratio to the baseline (median over the rounds). This is
// the engine alone: the server adds decoding, validation, admission and storage to both kinds of
// request, so the request-level ratio the issue targets (>= 0.6) is closer to 1 than these.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const patch = await import(path.join(root, 'packages/patch/dist/index.js')).catch((error) => {
  console.error('cannot load packages/patch/dist/index.js; build first: npx nx run patch:build');
  console.error(String(error));
  process.exit(2);
});

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Math.max(1, Number(args[args.indexOf('--rounds') + 1]) || 7) : 7;
const json = args.includes('--json');
const apiVersion = 'certificates.plat.io/v1alpha1';
const pem = (c) => `-----BEGIN CERTIFICATE-----\n${c.repeat(64)}\n${c.repeat(64)}\n${c.repeat(40)}\n-----END CERTIFICATE-----\n`;

function config(bundle, labels) {
  return {
    apiVersion,
    kind: 'ClusterTrustBundle',
    metadata: { name: 'plat.io:ca:bench', labels },
    spec: { signerName: 'plat.io/ca', trustBundle: bundle },
  };
}

// The live object: created by an apply of `kubectl`, then labelled by `clientctl-label`.
const created = patch.apply({ applied: config(pem('A'), { team: 'x' }), manager: 'kubectl', apiVersion, now: '2026-11-22T06:00:00Z' });
const labelled = patch.recordUpdate({
  before: created.object,
  after: { ...created.object, metadata: { ...created.object.metadata, labels: { team: 'x', extra: 'y' }, uid: 'u1', resourceVersion: '12' } },
  manager: 'clientctl-label',
  apiVersion,
  now: '2026-11-22T06:01:00Z',
}).object;

const mergePatch = { spec: { trustBundle: pem('B') }, metadata: { labels: { tier: 'z' } } };
const cases = {
  baseline: () => {
    const after = patch.applyMergePatch(labelled, mergePatch);
    return patch.recordUpdate({ before: labelled, after, manager: 'clientctl-patch', apiVersion, now: '2026-11-22T06:02:00Z' });
  },
  unchanged: () => {
    const r = patch.apply({ live: labelled, applied: config(pem('A'), { team: 'x' }), manager: 'kubectl', apiVersion, now: '2026-11-22T06:02:00Z' });
    if (r.changed) throw new Error('unchanged apply changed the object');
    return r;
  },
  changed: () => {
    const r = patch.apply({ live: labelled, applied: config(pem('B'), { team: 'x', tier: 'z' }), manager: 'kubectl', apiVersion, now: '2026-11-22T06:02:00Z' });
    if (!r.changed || r.conflicts.length) throw new Error('changed apply did not change the object');
    return r;
  },
  pruning: () => {
    const r = patch.apply({ live: labelled, applied: config(pem('B'), { tier: 'z' }), manager: 'kubectl', apiVersion, now: '2026-11-22T06:02:00Z' });
    if ('team' in r.object.metadata.labels) throw new Error('pruning apply kept the dropped label');
    return r;
  },
};

function opsPerSecond(fn, ms = 150) {
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < end && n < 5_000_000) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

for (const fn of Object.values(cases)) for (let i = 0; i < 2000; i++) fn(); // warm-up
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) for (const [k, fn] of Object.entries(cases)) samples[k].push(opsPerSecond(fn));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
const ratios = {
  unchanged: result.unchanged / result.baseline,
  changed: result.changed / result.baseline,
  pruning: result.pruning / result.baseline,
};
if (json) console.log(JSON.stringify({ opsPerSecond: result, ratios, rounds }));
else {
  console.log(`node ${process.version}, ${rounds} rounds (median ops/s)`);
  console.log(`baseline (merge patch + Update tracking): ${result.baseline.toFixed(0)}`);
  console.log(`apply, unchanged:                         ${result.unchanged.toFixed(0)}  ratio ${ratios.unchanged.toFixed(2)}`);
  console.log(`apply, changed:                           ${result.changed.toFixed(0)}  ratio ${ratios.changed.toFixed(2)}`);
  console.log(`apply, changed and one label dropped:     ${result.pruning.toFixed(0)}  ratio ${ratios.pruning.toFixed(2)}`);
}
