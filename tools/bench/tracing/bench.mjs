#!/usr/bin/env node
// Cost of tracing on GET throughput.
//
//   node tools/bench/tracing/bench.mjs [--duration 3] [--rounds 5] [--connections 16] [--configs off,rate0,full[,sdk]] [--json]
//
// It bundles apps/apiserver with esbuild (same options as the Nx build, through the e2e global
// setup) and starts three servers as child processes, each on a free port with --storage-backend=memory:
//   off   — no --tracing-config-file (the no-op tracer, no SDK loaded)
//   rate0 — samplingRatePerMillion: 0 (spans are started but none is sampled or exported)
//   full  — samplingRatePerMillion: 1000000 (every request exported: five spans a GET, the request
//           and its children authentication, authorization, authorizer Builtin/builtin, storage.get)
//   sdk   — (only when named) full sampling on a copy of the bundle whose BatchSpanProcessor drops
//           each span as it ends: what the OpenTelemetry SDK and our span wrappers cost with no
//           encoding and no export at all, the floor under "full" that no exporter can go below
// The traced servers export over OTLP/gRPC to a real receiver in a child process (receiver.mjs:
// @grpc/grpc-js, TraceService/Export taking the raw protobuf bytes; it counts calls and bytes, so
// we can tell that spans did arrive). autocannon drives GET of one ClusterTrustBundle (HTTP/1.1 keep-alive,
// admin client certificate) against each server in turn, --rounds times, so that load from other
// jobs on the machine hits all three alike (the order rotates each round, with --settle-ms between slices). Figures: requests per second, and requests per CPU
// second of the server process (from /proc), each as a ratio of "off": the median and range of
// the per-round ratios, and the ratio of the totals.
// Target: rate0 >= 0.95 of off. Full sampling is a debugging setting: its ratio is reported, not a target.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, createBenchBundle, measuredSlice, mergeSlices, startApiServer } from '../lib/apiserver-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const { flag, has } = benchFlags();
const duration = Number(flag('duration', '3'));
const rounds = Number(flag('rounds', '5'));
const connections = Number(flag('connections', '16'));
const cannon = cannonWith({ connections, duration });
const asJson = has('--json');
const settleMs = Number(flag('settle-ms', '1500'));
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** The OTLP/gRPC receiver (receiver.mjs) in a child process; `stats()` asks it for its counts. */
async function startReceiver() {
  const child = spawn(process.execPath, [path.join(here, 'receiver.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  const waiters = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiters.shift();
    if (w) w(line);
    else lines.push(line);
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiters.push(r)));
  const port = /^listening (\d+)$/.exec(await next())[1];
  const exited = new Promise((r) => child.once('exit', r));
  return {
    endpoint: `127.0.0.1:${port}`,
    async stats() {
      child.stdin.write('stats\n');
      return JSON.parse(await next());
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

async function main() {
  const bundle = await buildApiServerBundle();
  const receiver = await startReceiver();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-tracing-'));
  const tracingFile = (rate) => {
    const file = path.join(dir, `tracing-${rate}.yaml`);
    fs.writeFileSync(file, `apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: ${rate}\n`);
    return file;
  };
  const kinds = {
    off: [],
    rate0: [`--tracing-config-file=${tracingFile(0)}`],
    full: [`--tracing-config-file=${tracingFile(1_000_000)}`],
    sdk: [`--tracing-config-file=${tracingFile(1_000_000)}`],
  };
  const variants = [];
  const bundles = { sdk: () => variants[variants.push(spanDroppingBundle(bundle)) - 1] };
  // --configs off,rate0,full (default); a repeated kind (off,off-2) measures the benchmark's own noise.
  const configs = flag('configs', 'off,rate0,full')
    .split(',')
    .map((name) => ({ name, args: kinds[name.split('-')[0]] }));
  if (configs[0].name !== 'off' || configs.some((c) => !c.args)) throw new Error('--configs: a list of off, rate0, full, sdk (first off)');
  const servers = [];
  try {
    for (const c of configs) {
      const dataDir = path.join(dir, c.name);
      const s = await startApiServer({ bundle: bundles[c.name.split('-')[0]]?.() ?? bundle, dataDir, args: ['--storage-backend=memory', ...c.args] });
      servers.push(s);
      const url = s.url;
      const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
      const dispatcher = new Agent({ connect: creds });
      await createBenchBundle(url, dispatcher, creds);
      await dispatcher.close();
      Object.assign(c, { url, creds, pid: s.child.pid, runs: [] });
    }
    // Warm-up, then alternate the three servers round by round.
    for (const c of configs) await cannon({ url: `${c.url}${collection}/bench`, duration: 1, tlsOptions: tlsOptions(c.creds), headers: { accept: 'application/json' } });
    for (let r = 0; r < rounds; r++) {
      // Rotate the order so that each server follows each other one equally often, and pause
      // between slices: the full-rate server keeps exporting what it buffered for a moment.
      for (const c of [...configs.slice(r % configs.length), ...configs.slice(0, r % configs.length)]) {
        await new Promise((res) => setTimeout(res, settleMs));
        c.runs.push(await measuredSlice(cannon, c.pid, { url: `${c.url}${collection}/bench`, tlsOptions: tlsOptions(c.creds), headers: { accept: 'application/json' } }));
      }
      log(`round ${r + 1}/${rounds}: ${configs.map((c) => `${c.name} ${Math.round(c.runs.at(-1).total / c.runs.at(-1).seconds)} req/s`).join(', ')}`);
    }
    // Let the full-rate server export what it buffered (5 s batch delay).
    await new Promise((r) => setTimeout(r, 6000));
    const out = {};
    for (const c of configs) {
      out[c.name] = mergeSlices(c.runs);
    }
    // Ratios per round (the servers of one round ran within seconds of each other, under about
    // the same machine load), then the median over the rounds: steadier than ratios of totals
    // when other jobs come and go.
    const median = (xs) => {
      const v = [...xs].sort((x, y) => x - y);
      return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    };
    const off = configs[0];
    for (const c of configs.slice(1)) {
      const rpsRatios = c.runs.map((x, i) => x.total / x.seconds / (off.runs[i].total / off.runs[i].seconds));
      const cpuRatios = c.runs.map((x, i) => x.total / x.cpu / (off.runs[i].total / off.runs[i].cpu));
      out[c.name].ratio = Number(median(rpsRatios).toFixed(3));
      out[c.name].cpuRatio = Number(median(cpuRatios).toFixed(3));
      out[c.name].ratioRange = [Math.min(...rpsRatios), Math.max(...rpsRatios)].map((x) => Number(x.toFixed(3)));
      out[c.name].cpuRatioRange = [Math.min(...cpuRatios), Math.max(...cpuRatios)].map((x) => Number(x.toFixed(3)));
      out[c.name].ratioOfTotals = Number((out[c.name].rps / out.off.rps).toFixed(3));
      out[c.name].cpuRatioOfTotals = Number((out[c.name].perCpuSecond / out.off.perCpuSecond).toFixed(3));
    }
    const received = await receiver.stats();
    out.receiver = { exportCalls: received.calls, bytes: received.bytes };
    out.settings = { duration, rounds, connections, node: process.version };
    if (asJson) {
      console.log(JSON.stringify(out, null, 2));
    } else {
      console.log('| tracing | GET req/s | ÷ off (median of rounds [range]; of totals) | req per CPU-s | ÷ off (median [range]; totals) | p99 ms | non-2xx | errors |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
      for (const { name } of configs) {
        const o = out[name];
        const r = o.ratio === undefined ? '1' : `${o.ratio} [${o.ratioRange.join('–')}]; ${o.ratioOfTotals}`;
        const c = o.cpuRatio === undefined ? '1' : `${o.cpuRatio} [${o.cpuRatioRange.join('–')}]; ${o.cpuRatioOfTotals}`;
        console.log(`| ${name} | ${o.rps} | ${r} | ${o.perCpuSecond} | ${c} | ${o.p99ms} | ${o.non2xx} | ${o.errors} |`);
      }
      console.log(`receiver: ${out.receiver.exportCalls} OTLP export calls, ${out.receiver.bytes} bytes`);
      if (out.rate0) console.log(`target rate0 >= 0.95 of off: ${out.rate0.ratio >= 0.95 ? 'met' : 'NOT met'} (CPU ratio ${out.rate0.cpuRatio})`);
      if (out.full) console.log(`full sampling: ${out.full.ratio} of off (CPU ratio ${out.full.cpuRatio}; not a target)`);
      if (out.sdk) console.log(`sdk (spans made and dropped, nothing encoded or exported): ${out.sdk.ratio} of off (CPU ratio ${out.sdk.cpuRatio})`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
    for (const file of variants) fs.rmSync(file, { force: true });
  }
}

/**
 * A copy of the bundle in which the SDK's BatchSpanProcessor (BatchSpanProcessorBase.onEnd)
 * returns at once: spans are still sampled, started, given their attributes and ended by the
 * SDK, then dropped. A benchmark variant only (the server has no such switch); it fails loudly if
 * the bundle's code changed shape.
 */
function spanDroppingBundle(bundle) {
  const src = fs.readFileSync(bundle, 'utf8');
  const onEnd = /(BatchSpanProcessorBase = class \{[\s\S]*?\n(\s*)onEnd\(\w+\) \{\n)/g;
  const matches = [...src.matchAll(onEnd)];
  if (matches.length !== 1) throw new Error(`sdk variant: expected one BatchSpanProcessorBase.onEnd in ${bundle}, found ${matches.length}`);
  // Beside the bundle: its external packages (better-sqlite3) resolve from there.
  const file = path.join(path.dirname(bundle), `bench-sdk-only-${process.pid}.mjs`);
  fs.writeFileSync(file, src.replace(onEnd, (all, _head, indent) => `${all}${indent}  return;\n`));
  return file;
}

function tlsOptions(creds) {
  return { ca: creds.ca, cert: creds.cert, key: creds.key };
}

await main();
