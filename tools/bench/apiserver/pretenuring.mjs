#!/usr/bin/env node
// GET latency at 50% of the maximum after a burst of creates, with V8's allocation-site
// pretenuring on (V8's default, `node --allocation-site-pretenuring`) and off (what the apiserver
// sets when it serves, apps/apiserver/src/v8-tuning.ts), alternating, same bundle:
//
//   node tools/bench/apiserver/pretenuring.mjs [--objects 1000] [--pairs 2] [--duration 10]
//
// Each run starts a fresh apiserver (SQLite, --trace-gc-nvp), creates --objects
// ClusterTrustBundles 50 at a time as bench.mjs seeds them, runs closed-loop GET (autocannon,
// 32 connections, 3 s + 5 x 2 s), then open-loop GET at half the measured rate (lib/open-loop.mjs
// in a child process), and prints the p99 with the young-generation collections of that
// open-loop run: median scavenge pause and bytes promoted per scavenge.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, closedLoopGetRate, createBenchBundle, seedObjects, startApiServer } from '../lib/apiserver-harness.mjs';
import { openLoopGetInChild } from '../lib/open-loop.mjs';

const { flag } = benchFlags();
const objects = Number(flag('objects', '1000'));
const pairs = Number(flag('pairs', '2'));
const duration = Number(flag('duration', '10'));
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : NaN;
};

async function run(bundle, pretenuring) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-pretenuring-'));
  const nodeArgs = ['--trace-gc-nvp', ...(pretenuring ? ['--allocation-site-pretenuring'] : [])];
  const server = await startApiServer({ bundle, dataDir: dir, nodeArgs });
  // --trace-gc-nvp writes one line per collection to stdout; scavenges carry "gc=s".
  let scavenges = [];
  server.child.stdout.on('data', (chunk) => {
    for (const line of String(chunk).split('\n')) if (line.includes(' gc=s ')) scavenges.push(line);
  });
  try {
    const url = server.url;
    const creds = adminCredentials(path.join(dir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds, connections: 64 });
    await createBenchBundle(url, dispatcher, creds);
    await seedObjects(url, dispatcher, creds.ca, { count: objects, name: (i) => `burst-${i}` });
    await dispatcher.close();
    const tlsOptions = { ca: creds.ca, cert: creds.cert, key: creds.key };
    const rate = Math.floor((await closedLoopGetRate({ url: `${url}${collection}/bench`, tlsOptions, headers: { accept: 'application/json' } })) / 2);
    scavenges = [];
    const open = await openLoopGetInChild({ origin: url, path: `${collection}/bench`, tlsOptions, headers: { accept: 'application/json' }, rate, duration, connections: 32 });
    const field = (name) => scavenges.map((l) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(l)?.[1])).filter((x) => !Number.isNaN(x));
    return { pretenuring: pretenuring ? 'on' : 'off', rate, p99ms: open.p99ms, p999ms: open.p999ms, scavenges: scavenges.length, scavengeMs: median(field('pause')), promotedKB: Math.round(median(field('promoted')) / 1024) };
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const bundle = await buildApiServerBundle();
console.log('| V8 pretenuring | "50%" rate | p99 ms | p99.9 ms | scavenges | median pause ms | median promoted KB |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (let i = 0; i < pairs; i++) {
  for (const pretenuring of [true, false]) {
    const r = await run(bundle, pretenuring);
    console.log(`| ${r.pretenuring} | ${r.rate}/s | ${r.p99ms} | ${r.p999ms} | ${r.scavenges} | ${r.scavengeMs} | ${r.promotedKB} |`);
  }
}
