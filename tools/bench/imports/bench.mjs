#!/usr/bin/env node
// Benchmark: how long importing each @plat package takes, and what it loads.
//
//   npx nx run-many -t build && node tools/bench/imports/bench.mjs [--runs N] [--json]
//
// Every measurement is a fresh `node` process (child.mjs) that times `await import(...)` of the
// built package (packages/<name>/dist, as a consumer gets it) with performance.now(), so Node's
// own start-up is not counted, and reports the CommonJS packages it loaded. Scenarios:
//   - each package imported alone;
//   - @plat/storage imported, a memory store and a SQLite store opened, written and closed:
//     etcd3, gRPC and protobufjs must stay unloaded;
//   - the same import followed by `import('etcd3')`: what every storage user paid before etcd3
//     was loaded on first use (the baseline of the ratio), likewise @plat/egress with gRPC.
// Runs are interleaved round by round; the table shows the median and range of --runs (default 7).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const args = process.argv.slice(2);
const runs = args.includes('--runs') ? Math.max(1, Number(args[args.indexOf('--runs') + 1])) : 7;
const json = args.includes('--json');

const packages = fs
  .readdirSync(path.join(root, 'packages'))
  .filter((dir) => fs.existsSync(path.join(root, 'packages', dir, 'package.json')))
  .sort();
for (const dir of packages) {
  if (!fs.existsSync(path.join(root, 'packages', dir, 'dist', 'index.js'))) {
    console.error(`packages/${dir}/dist is missing; build first: npx nx run-many -t build`);
    process.exit(2);
  }
}

const scenarios = [
  ...packages.map((dir) => ({ name: `@plat/${dir}`, args: ['import', `@plat/${dir}`] })),
  { name: '@plat/storage, memory + SQLite stores', args: ['storage-local'] },
  { name: '@plat/storage + etcd3 (eager, before)', args: ['import', '@plat/storage', 'etcd3'] },
  { name: '@plat/egress + gRPC (eager, before)', args: ['import', '@plat/egress', '@grpc/grpc-js', '@grpc/proto-loader'] },
  { name: 'etcd3 alone', args: ['import', 'etcd3'] },
];

const samples = new Map(scenarios.map((s) => [s.name, []]));
const loaded = new Map();
for (let run = 0; run < runs; run++) {
  for (const scenario of scenarios) {
    const out = execFileSync(process.execPath, [path.join(here, 'child.mjs'), ...scenario.args], { cwd: root, encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop());
    samples.get(scenario.name).push(result.ms);
    loaded.set(scenario.name, result.loaded);
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const heavy = ['etcd3', '@grpc/grpc-js', 'protobufjs', 'better-sqlite3', '@opentelemetry/sdk-node'];
const rows = scenarios.map(({ name }) => {
  const values = samples.get(name);
  const packagesLoaded = loaded.get(name);
  return {
    scenario: name,
    medianMs: median(values),
    minMs: Math.min(...values),
    maxMs: Math.max(...values),
    cjsPackages: packagesLoaded.length,
    heavyLoaded: heavy.filter((p) => packagesLoaded.includes(p)),
  };
});
const byName = Object.fromEntries(rows.map((r) => [r.scenario, r]));
const ratios = {
  storage: byName['@plat/storage'].medianMs / byName['@plat/storage + etcd3 (eager, before)'].medianMs,
  egress: byName['@plat/egress'].medianMs / byName['@plat/egress + gRPC (eager, before)'].medianMs,
};

if (json) {
  console.log(JSON.stringify({ runs, rows, ratios }, null, 2));
} else {
  const fmt = (ms) => ms.toFixed(0).padStart(5);
  console.log(`import time, ${runs} runs each (ms: median [min-max]); CommonJS packages loaded; heavy ones loaded`);
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(42)} ${fmt(r.medianMs)} [${r.minMs.toFixed(0)}-${r.maxMs.toFixed(0)}]`.padEnd(68) +
        `${String(r.cjsPackages).padStart(4)}  ${r.heavyLoaded.join(', ') || '-'}`,
    );
  }
  console.log(`ratio @plat/storage / storage + etcd3: ${ratios.storage.toFixed(2)}; @plat/egress / egress + gRPC: ${ratios.egress.toFixed(2)}`);
}
const leaked = ['@plat/storage', '@plat/storage, memory + SQLite stores'].flatMap((n) => byName[n].heavyLoaded.filter((p) => p !== 'better-sqlite3'));
if (leaked.length) {
  console.error(`@plat/storage loaded ${leaked.join(', ')} without an etcd3 store`);
  process.exit(1);
}
