#!/usr/bin/env node
// Where a GET's CPU time goes: V8 CPU profiles of the apiserver and of the bare node:https server
// under the same closed-loop GET load, summarised per request by part of the request path and by
// function.
//
//   node tools/bench/apiserver/profile.mjs [--duration 10] [--connections 32] [--backend sqlite|memory]
//                                          [--top 25] [--keep DIR] [--json] [--list N]
//
// --list N profiles a LIST of N ClusterTrustBundles (label-selected, as bench.mjs's) instead of
// the GET, against the bare server sending that LIST's bytes.
//
// Both servers run with `--cpu-prof` (V8's sampling profiler, 1 ms by default; `--interval US`
// changes it). Only the samples taken while the measured load ran count: the profiles' timestamps
// and this process's `process.hrtime` read the same monotonic clock (CLOCK_MONOTONIC on Linux),
// so start-up, seeding and warm-up drop out. Each sample is charged to the function on top of
// the stack (self time), mapped through the bundle's source map to its source file, and the file
// to a part of the request path (`partOf` below). Idle samples are not CPU time and are left out.
// The CPU time per request is what /proc says the server process used in the window divided by
// the requests autocannon completed; the profile gives each part's share of it. V8 samples on a
// wall-clock timer, so a process that waits for a CPU has that wait charged to whatever is on top
// of its stack (often `writev`): run it on a quiet machine (`uptime` load well under 1) for
// shares worth reading. Even there the server is preempted by the client it wakes with each
// response, inside `writev`: perf-native.mjs splits the CPU time itself (perf) and finds that
// write costing what the bare server's does (docs/performance.md, "apiserver").
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchFlags, buildApiServerBundle, cannonWith, cpuSeconds, root, seedBenchTarget, startApiServer, startBareServer } from '../lib/apiserver-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { flag, has } = benchFlags();
const duration = Number(flag('duration', '10'));
const connections = Number(flag('connections', '32'));
const backend = flag('backend', 'sqlite');
const top = Number(flag('top', '25'));
const interval = flag('interval', '');
const keep = flag('keep', '');
const asJson = has('--json');
const listSize = Number(flag('list', '0'));
const log = (...m) => {
  if (!asJson) console.error(...m);
};
const cannon = cannonWith({ connections, duration });
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * The part of the request path a source file belongs to. Order matters: the first match wins.
 * Node's own modules are named by what they do for a request (TLS, HTTP parsing and writing,
 * streams); the rest by our package and folder.
 */
const parts = [
  [/^node:(_tls|tls|internal\/tls|crypto|internal\/crypto)/, 'node: TLS'],
  [/^node:(_http|http|internal\/http)/, 'node: HTTP server'],
  [/^node:(net|internal\/net|internal\/stream_base|stream|internal\/streams)/, 'node: sockets and streams'],
  [/^node:(internal\/process\/task_queues|internal\/async_hooks|internal\/timers|timers|events|internal\/event_target|internal\/abort_controller)/, 'node: events, timers, microtasks'],
  [/^node:/, 'node: other'],
  [/packages\/server\/src\/filters\/([\w-]+)\.ts$/, (m) => `filter: ${m[1]}`],
  [/packages\/server\/src\/(handler-chain|serving|secure-serving|api-server)\.ts$/, 'server: chain and serving'],
  [/packages\/server\/src\/(routes|request-info|dispatch)\.ts$|packages\/server\/src\/rest\/dispatch\.ts$/, 'server: routing'],
  [/packages\/server\/src\/rest\//, 'server: REST handlers'],
  [/packages\/server\/src\/(negotiation|response|table|protobuf)\.ts$/, 'server: negotiation and encoding'],
  [/packages\/server\/src\/(metrics|fast-metrics|instrumented-storage)\.ts$|node_modules\/prom-client\//, 'metrics'],
  [/packages\/server\/src\/(tracing|context)\.ts$|node_modules\/@opentelemetry\//, 'context and tracing'],
  [/packages\/server\/src\//, 'server: other'],
  [/packages\/auth\/src\/(authn|x509|token|oidc|jwt|anonymous|authenticat)/, 'authenticator'],
  [/packages\/auth\/src\/(rbac|authz|authoriz|webhook)/, 'authorizer'],
  [/packages\/auth\/src\//, 'auth: other'],
  [/packages\/storage\/src\/|node_modules\/better-sqlite3\//, 'storage and watch cache'],
  [/packages\/registry\/src\//, 'registry (strategy)'],
  [/packages\/api-model\/src\//, 'api-model'],
  [/packages\/audit\/src\//, 'audit'],
  [/node_modules\/([^/]+|@[^/]+\/[^/]+)\//, (m) => `library: ${m[1]}`],
  [/packages\/([\w-]+)\/src\//, (m) => `package: ${m[1]}`],
];

function partOf(source, functionName) {
  if (functionName === '(garbage collector)') return 'V8: garbage collector';
  if (functionName === '(program)') return 'V8: native and runtime';
  if (functionName === '(root)') return 'V8: native and runtime';
  if (!source) return 'V8: builtins and native';
  for (const [re, name] of parts) {
    const m = re.exec(source);
    if (m) return typeof name === 'function' ? name(m) : name;
  }
  return `other: ${source}`;
}

/** Maps a profile's call frame to its source file (and function name), through the bundle's source map when the frame is in it. */
function sourceResolver(bundle) {
  const maps = new Map();
  const mapFor = (url) => {
    if (!maps.has(url)) {
      let sm = null;
      try {
        const file = fileURLToPath(url);
        if (fs.existsSync(`${file}.map`)) sm = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
      } catch {
        sm = null;
      }
      maps.set(url, sm);
    }
    return maps.get(url);
  };
  const bundleUrl = bundle ? pathToFileURL(bundle).href : '';
  return (frame) => {
    const { url, lineNumber, columnNumber } = frame;
    if (!url) return '';
    if (url.startsWith('node:')) return url;
    if (!url.startsWith('file:')) return url;
    const sm = mapFor(url);
    if (!sm) return path.relative(root, fileURLToPath(url));
    const entry = sm.findEntry(lineNumber, columnNumber);
    const src = entry?.originalSource;
    if (!src) return url === bundleUrl ? '(bundle)' : url;
    const abs = src.startsWith('file:') ? fileURLToPath(src) : path.resolve(path.dirname(fileURLToPath(url)), src);
    return path.relative(root, abs);
  };
}

/** Self time (µs) per part and per function of the samples between `fromUs` and `toUs`. */
function summarise(profile, resolve, fromUs, toUs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const frameInfo = new Map();
  const info = (node) => {
    let v = frameInfo.get(node.id);
    if (!v) {
      const source = resolve(node.callFrame);
      const fn = node.callFrame.functionName || '(anonymous)';
      v = { part: partOf(source, node.callFrame.functionName), fn: `${fn} ${source ? `${source}` : ''}`.trim(), idle: node.callFrame.functionName === '(idle)' };
      frameInfo.set(node.id, v);
    }
    return v;
  };
  const byPart = new Map();
  const byFunction = new Map();
  let t = profile.startTime;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    // A sample's time is the interval to the next sample.
    const dt = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    if (t < fromUs || t > toUs || dt <= 0) continue;
    const v = info(byId.get(profile.samples[i]));
    if (v.idle) continue;
    busy += dt;
    byPart.set(v.part, (byPart.get(v.part) ?? 0) + dt);
    byFunction.set(v.fn, (byFunction.get(v.fn) ?? 0) + dt);
  }
  return { busy, byPart, byFunction };
}

function startBare(input) {
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${input.profDir}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])];
  return startBareServer(path.join(here, 'bare-server.mjs'), input.serving, nodeArgs);
}

/** The newest .cpuprofile in `dir` once the process that writes it has exited. */
function readProfile(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${dir}, found ${files.length}`);
  return JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
}

/** Closed-loop GET load for `duration` seconds after a 3 s warm-up; the window's monotonic bounds and request count. */
async function measuredWindow(target, pid) {
  await cannon({ ...target, duration: 3 });
  const cpu = cpuSeconds(pid);
  const fromUs = nowUs();
  const result = await cannon(target);
  const toUs = nowUs();
  const cpuUs = 1e6 * (cpuSeconds(pid) - cpu);
  if (result.non2xx || result.errors) throw new Error(`GET load failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { fromUs, toUs, requests: result.requests.total, cpuUs };
}

async function main() {
  const work = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'plat-profile-'));
  const apiProf = path.join(work, 'apiserver');
  const bareProf = path.join(work, 'bare');
  for (const d of [apiProf, bareProf]) {
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d, { recursive: true });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-profile-data-'));
  const bundle = await buildApiServerBundle();
  log(`bundle ${path.relative(root, bundle)}; backend ${backend}; ${connections} connections; ${duration} s; profiles in ${work}`);
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${apiProf}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])];
  const api = await startApiServer({ bundle, dataDir, nodeArgs, args: [`--storage-backend=${backend}`, '--v=0'], cwd: root, timeoutMs: 60_000 });
  let bare;
  let apiWindow;
  let bareWindow;
  try {
    const getPath = listSize ? `${collection}?labelSelector=bench%3Dlist` : `${collection}/bench-get`;
    const { tlsOptions, target, serving } = await seedBenchTarget(api, dataDir, getPath, { listSize });
    log('apiserver: warm-up 3 s, then profiled GET load...');
    apiWindow = await measuredWindow(target, api.child.pid);
    await api.stop();
    bare = startBare({ profDir: bareProf, serving });
    const barePort = await bare.port;
    log('bare node:https: warm-up 3 s, then profiled GET load...');
    bareWindow = await measuredWindow({ url: `https://127.0.0.1:${barePort}${getPath}`, tlsOptions }, bare.pid);
  } finally {
    await api.stop();
    await bare?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const apiSummary = summarise(readProfile(apiProf), sourceResolver(bundle), apiWindow.fromUs, apiWindow.toUs);
  const bareSummary = summarise(readProfile(bareProf), sourceResolver(null), bareWindow.fromUs, bareWindow.toUs);
  const perReq = (us, n) => Number((us / n).toFixed(2));
  // Each part's share of the profile's busy samples, applied to the CPU time /proc measured.
  const rows = (m, window, busy) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, usPerRequest: perReq((us / busy) * window.cpuUs, window.requests) }));
  const report = {
    duration,
    connections,
    backend,
    load: os.loadavg()[0],
    apiserver: {
      requests: apiWindow.requests,
      cpuUsPerRequest: perReq(apiWindow.cpuUs, apiWindow.requests),
      sampledUsPerRequest: perReq(apiSummary.busy, apiWindow.requests),
      byPart: rows(apiSummary.byPart, apiWindow, apiSummary.busy),
      byFunction: rows(apiSummary.byFunction, apiWindow, apiSummary.busy).slice(0, top),
    },
    bare: {
      requests: bareWindow.requests,
      cpuUsPerRequest: perReq(bareWindow.cpuUs, bareWindow.requests),
      sampledUsPerRequest: perReq(bareSummary.busy, bareWindow.requests),
      byPart: rows(bareSummary.byPart, bareWindow, bareSummary.busy),
    },
  };
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
  if (asJson) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  const a = report.apiserver;
  const b = report.bare;
  const pct = (x, total) => `${((100 * x) / total).toFixed(1)}%`;
  console.log(`GET of one ClusterTrustBundle, ${connections} connections, ${duration} s, backend ${backend}`);
  console.log(`apiserver: ${a.cpuUsPerRequest} µs of CPU per request (${a.requests} requests); bare node:https: ${b.cpuUsPerRequest} µs (${b.requests} requests); ratio ${(b.cpuUsPerRequest / a.cpuUsPerRequest).toFixed(2)}`);
  console.log(`(sampled busy time per request: ${a.sampledUsPerRequest} and ${b.sampledUsPerRequest} µs; load average ${report.load.toFixed(2)})`);
  console.log('\n| part of the request path | apiserver µs/request | share | bare µs/request |');
  console.log('|---|---|---|---|');
  const bareBy = new Map(b.byPart.map((r) => [r.name, r.usPerRequest]));
  for (const r of a.byPart) console.log(`| ${r.name} | ${r.usPerRequest} | ${pct(r.usPerRequest, a.cpuUsPerRequest)} | ${bareBy.get(r.name) ?? ''} |`);
  for (const r of b.byPart) if (!a.byPart.some((x) => x.name === r.name)) console.log(`| ${r.name} | | | ${r.usPerRequest} |`);
  console.log(`| **total** | **${a.cpuUsPerRequest}** | 100% | **${b.cpuUsPerRequest}** |`);
  console.log(`\n| function (self time), top ${top} | source | µs/request |`);
  console.log('|---|---|---|');
  for (const r of a.byFunction) {
    const [fn, ...src] = r.name.split(' ');
    console.log(`| \`${fn}\` | ${src.join(' ')} | ${r.usPerRequest} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
