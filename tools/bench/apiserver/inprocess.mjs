#!/usr/bin/env node
// CPU per GET of one ClusterTrustBundle spent by the apiserver's own request path, without the
// kernel, the load generator and the scheduler between them: the real apiserver bundle runs in
// this process (its CLI, memory or SQLite storage, dev PKI, the whole filter chain), and its real
// HTTPS server gets its connections from in-memory stream pairs instead of TCP. A client in the
// same process keeps `--depth` pipelined HTTP/1.1 GETs outstanding on each of `--connections`
// TLS connections (client certificate: the admin's), and counts the answers by their length.
// So the figure is the server's JavaScript and node's HTTP and TLS for the request, plus a
// small, fixed client cost (one TLS record written per batch, the answers decrypted).
//
//   node tools/bench/apiserver/inprocess.mjs [--bundle B] [--backend memory|sqlite] [--requests 20000]
//                                            [--rounds 5] [--connections 4] [--depth 16] [--bare] [--profile [--heap] [--keep FILE]] [--top 30]
//   node tools/bench/apiserver/inprocess.mjs --a base.mjs --b new.mjs [--rounds 10] [--pin] ...
//   node tools/bench/apiserver/inprocess.mjs [--a X --b Y] --a-args 'FLAGS' --b-args 'FLAGS' ...
//
// --a-args / --b-args: server flags for that side only (space-separated; `{data}` is the child's
// data directory), e.g. audit off against an audit policy in the same build (tools/bench/audit/
// inprocess.mjs). With either and no --a/--b, both sides run the one build.
// With --a and --b, each build runs in its own child process and the rounds alternate (A B, B A,
// ...), so that a machine whose speed drifts hits both alike: read the per-round ratio B ÷ A.
// --pin (taskset) puts both children on CPU 0. --bare adds bare-server.mjs's node:https server
// to each child, answering the same bytes over the same in-memory connections, and alternates
// the two within each round: the ratio per round is the issue's "requests per CPU-second
// against a bare server" without the kernel's share. --profile takes a V8 CPU profile of the measured
// rounds (node:inspector, in the process) and prints self time per function in µs per GET,
// mapped through the bundle's source map; with --heap, bytes allocated per GET by function
// instead (V8's sampling heap profiler, counting objects the GC already took). A bundle: see ab.mjs (default: the jest global
// setup's main.mjs, rebuilt from this tree).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import inspector from 'node:inspector';
import { SourceMap, syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminCredentials, benchFlags, buildApiServerBundle, root } from '../lib/apiserver-harness.mjs';

const { flag, has } = benchFlags();
const backend = flag('backend', 'memory');
const requests = Number(flag('requests', '20000'));
const rounds = Number(flag('rounds', '5'));
const connections = Number(flag('connections', '4'));
const depth = Number(flag('depth', '16'));
const top = Number(flag('top', '30'));
const getPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench';

/** Two streams, each reading what the other writes (node 22's stream.duplexPair). */
function duplexPair() {
  const a = new Duplex({ read() {}, write: (chunk, _enc, cb) => (b.push(chunk), cb()), final: (cb) => (b.push(null), cb()) });
  const b = new Duplex({ read() {}, write: (chunk, _enc, cb) => (a.push(chunk), cb()), final: (cb) => (a.push(null), cb()) });
  return [a, b];
}

const createHttpsServer = https.createServer;

/** Starts the bundle's CLI in this process and returns its HTTPS server and the admin's credentials. */
async function startInProcess(bundle, dataDir, extraArgs) {
  // The server the apiserver makes (secure-serving.ts), to hand it connections.
  const servers = [];
  for (const [mod, name] of [[http2, 'createSecureServer'], [https, 'createServer']]) {
    const original = mod[name];
    mod[name] = (...args) => {
      const s = original(...args);
      servers.push(s);
      return s;
    };
  }
  syncBuiltinESMExports();
  process.argv = [process.execPath, bundle, '--secure-port=0', `--data-dir=${dataDir}`, `--storage-backend=${backend}`, '-v=0', ...extraArgs];
  await import(pathToFileURL(bundle).href);
  const kubeconfig = path.join(dataDir, 'admin.conf');
  for (let i = 0; !(servers[0]?.listening && fs.existsSync(kubeconfig)); i++) {
    if (i > 600) throw new Error('the apiserver did not start within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server: servers[0], creds: adminCredentials(kubeconfig) };
}

/** A client connection over an in-memory pair: `send(n)` writes n GETs, `onAnswers(k)` counts whole answers. */
async function connect(server, creds) {
  const [serverEnd, clientEnd] = duplexPair();
  server.emit('connection', serverEnd);
  const socket = tls.connect({ socket: clientEnd, ca: creds.ca, cert: creds.cert, key: creds.key, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
  await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  return socket;
}

/** One GET on its own, for its answer's length (each answer of the benchmark has the same) and body. */
async function firstAnswer(socket) {
  let got = Buffer.alloc(0);
  socket.write(`GET ${getPath} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`);
  for (;;) {
    const chunk = await new Promise((r) => socket.once('data', r));
    got = Buffer.concat([got, chunk]);
    const head = got.indexOf('\r\n\r\n');
    if (head < 0) continue;
    const text = got.subarray(0, head).toString('latin1');
    if (!text.startsWith('HTTP/1.1 200')) throw new Error(`GET ${getPath}: ${got.toString('utf8')}`);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1]);
    if (got.length >= head + 4 + length) return { length: head + 4 + length, body: got.subarray(head + 4, head + 4 + length), contentType: /\r\ncontent-type: *([^\r]*)/i.exec(text)?.[1] };
  }
}

/** TLS records' worth of answers the client got (data events): how many writes the server's answers took. */
let chunks = 0;

/** Drives `n` GETs over the connections, `depth` outstanding on each; resolves when all are answered. */
function run(sockets, length, n, request) {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    for (const socket of sockets) {
      let bytes = 0;
      let outstanding = 0;
      const send = () => {
        const k = Math.min(depth - outstanding, n - sent);
        if (k <= 0) return;
        sent += k;
        outstanding += k;
        socket.write(request.repeat(k));
      };
      socket.removeAllListeners('data');
      socket.on('data', (chunk) => {
        chunks++;
        bytes += chunk.length;
        const whole = Math.floor(bytes / length);
        if (whole === 0) return;
        bytes -= whole * length;
        outstanding -= whole;
        answered += whole;
        if (answered === n) resolve();
        else send();
      });
      send();
    }
  });
}

/** `function source` of a profile's call frame, through the bundle's source map. */
function frameName(bundle) {
  const map = fs.existsSync(`${bundle}.map`) ? new SourceMap(JSON.parse(fs.readFileSync(`${bundle}.map`, 'utf8'))) : null;
  const bundleUrl = pathToFileURL(bundle).href;
  return ({ functionName, url, lineNumber, columnNumber }) => {
    let source = url;
    if (url === bundleUrl && map) {
      const src = map.findEntry(lineNumber, columnNumber)?.originalSource;
      if (src) source = path.relative(root, src.startsWith('file:') ? fileURLToPath(src) : path.resolve(path.dirname(bundle), src));
    } else if (url.startsWith('file:')) source = path.relative(root, fileURLToPath(url));
    return `${functionName || '(anonymous)'} ${source}`.trim();
  };
}

/** Self time per function (µs) of a V8 CPU profile, mapped through the bundle's source map. */
function byFunction(profile, bundle) {
  const resolve = frameName(bundle);
  const names = new Map();
  const nameOf = (node) => {
    let v = names.get(node.id);
    if (!v) names.set(node.id, (v = resolve(node.callFrame)));
    return v;
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const name = nameOf(byId.get(profile.samples[i]));
    if (name.startsWith('(idle)')) continue;
    self.set(name, (self.get(name) ?? 0) + dt);
  }
  return self;
}

/** Bytes allocated per GET by the function that allocated them (a sampling heap profile), mapped as byFunction's. */
function allocations(profile, bundle, count) {
  const self = new Map();
  const resolve = frameName(bundle);
  const walk = (node) => {
    const bytes = node.selfSize;
    if (bytes) {
      const name = resolve(node.callFrame);
      self.set(name, (self.get(name) ?? 0) + bytes);
    }
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  return [...self].sort((x, y) => y[1] - x[1]).map(([fn, bytes]) => [fn, bytes / count]);
}

/** Child: starts the server, then runs a round of `requests` GETs per line read on stdin and prints its CPU per GET. */
async function child(bundle) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-inprocess-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const extraArgs = flag('server-args', '').split(' ').filter(Boolean).map((a) => a.replaceAll('{data}', dataDir));
  const { server, creds } = await startInProcess(bundle, dataDir, extraArgs);
  const create = await connect(server, creds);
  const body = JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'bench' }, spec: { trustBundle: creds.ca } });
  create.write(`POST /apis/certificates.plat.io/v1alpha1/clustertrustbundles HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const created = String(await new Promise((r) => create.once('data', r)));
  if (!created.startsWith('HTTP/1.1 201')) throw new Error(`create: ${created}`);
  const sockets = [create];
  for (let i = 1; i < connections; i++) sockets.push(await connect(server, creds));
  const { length, body: answer, contentType } = await firstAnswer(sockets[0]);
  const request = `GET ${getPath} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nUser-Agent: inprocess\r\n\r\n`;
  await run(sockets, length, Math.max(2000, requests / 2), request); // warm-up
  // --bare: bare-server.mjs's node:https server in this process, answering the same body over the same pairs.
  let bare;
  if (has('--bare')) {
    const pki = path.join(dataDir, 'pki');
    const read = (f) => fs.readFileSync(path.join(pki, f), 'utf8');
    const server = createHttpsServer({ cert: read('apiserver.crt'), key: read('apiserver.key'), ca: read('ca.crt'), requestCert: true, rejectUnauthorized: true, keepAliveTimeout: 60_000 }, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': contentType, 'content-length': answer.length });
      res.end(answer);
    });
    const bareSockets = [];
    for (let i = 0; i < connections; i++) bareSockets.push(await connect(server, creds));
    const first = await firstAnswer(bareSockets[0]);
    if (!first.body.equals(answer)) throw new Error('the bare server answers other bytes');
    bare = { sockets: bareSockets, length: first.length };
    await run(bare.sockets, bare.length, Math.max(2000, requests / 2), request);
  }
  const measure = async (target) => {
    const cpu0 = process.cpuUsage();
    chunks = 0;
    await run(target.sockets, target.length, requests, request);
    const { user, system } = process.cpuUsage(cpu0);
    target.chunksPerGet = chunks / requests;
    return user + system;
  };
  const session = has('--profile') ? new inspector.Session() : undefined;
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
  const out = readline.createInterface({ input: process.stdin });
  let cpuTotal = 0;
  let count = 0;
  for await (const line of out) {
    if (line === 'end') break;
    if (session && count === 0) {
      session.connect();
      if (has('--heap')) await post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      else {
        await post('Profiler.enable');
        await post('Profiler.start');
      }
    }
    // With --bare, the two servers take turns: apiserver then bare, then bare then apiserver.
    const bareFirst = bare && count % (2 * requests) !== 0;
    const bareCpu = bareFirst ? await measure(bare) : undefined;
    const target = { sockets, length };
    const cpu = await measure(target);
    const bareCpuLast = bare && !bareFirst ? await measure(bare) : bareCpu;
    cpuTotal += cpu;
    count += requests;
    process.stdout.write(`${JSON.stringify({ cpuUs: cpu / requests, chunksPerGet: target.chunksPerGet, bareCpuUs: bare ? bareCpuLast / requests : undefined })}\n`);
  }
  if (session && has('--heap')) {
    const { profile } = await post('HeapProfiler.stopSampling');
    if (flag('keep', '')) fs.writeFileSync(flag('keep', ''), JSON.stringify(profile));
    process.stdout.write(`${JSON.stringify({ profile: allocations(profile, bundle, count).slice(0, top) })}\n`);
  } else if (session) {
    const { profile } = await post('Profiler.stop');
    if (flag('keep', '')) fs.writeFileSync(flag('keep', ''), JSON.stringify(profile));
    const self = byFunction(profile, bundle);
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const scale = cpuTotal / count / total; // the profile's shares of the measured CPU per GET
    const rows = [...self].sort((x, y) => y[1] - x[1]).slice(0, top);
    process.stdout.write(`${JSON.stringify({ profile: rows.map(([fn, us]) => [fn, us * scale]) })}\n`);
  }
  process.exit(0);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Parent: one child per build, rounds alternating between them. */
async function parent() {
  const sideArgs = { A: flag('a-args', ''), B: flag('b-args', '') };
  // --bundle gives a path, else the build is made: a promise either way.
  const one = async () => flag('bundle', '') || buildApiServerBundle();
  const builds = flag('a')
    ? { A: path.resolve(flag('a')), B: path.resolve(flag('b')) }
    : has('--a-args') || has('--b-args')
      ? await one().then((b) => ({ A: path.resolve(b), B: path.resolve(b) }))
      : { A: path.resolve(await one()) };
  const own = ['--a', '--b', '--bundle', '--a-args', '--b-args'];
  const pass = process.argv.slice(2).filter((a, i, all) => !own.includes(a) && !own.includes(all[i - 1]));
  const children = {};
  for (const [name, bundle] of Object.entries(builds)) {
    const c = spawn(process.execPath, [...(process.env.INPROCESS_NODE_FLAGS ?? '').split(' ').filter(Boolean), fileURLToPath(import.meta.url), '--child', bundle, ...pass, '--server-args', sideArgs[name]], { stdio: ['pipe', 'pipe', 'inherit'] });
    if (has('--pin')) execFileSync('taskset', ['-a', '-p', '-c', '0', String(c.pid)], { stdio: 'ignore' });
    const lines = readline.createInterface({ input: c.stdout });
    const queue = [];
    const waiting = [];
    lines.on('line', (l) => {
      if (!l.startsWith('{')) {
        // The apiserver's own stdout (and V8's --trace-* output, INPROCESS_NODE_FLAGS): shown with --echo.
        if (has('--echo')) process.stderr.write(`${name}: ${l}\n`);
        return;
      }
      if (waiting.length) waiting.shift()(JSON.parse(l));
      else queue.push(JSON.parse(l));
    });
    c.on('exit', (code) => {
      for (const w of waiting.splice(0)) w(null);
      if (code) console.error(`child ${name} exited with ${code}`);
    });
    children[name] = { c, next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))), runs: [] };
  }
  const names = Object.keys(children);
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      const ch = children[name];
      ch.c.stdin.write('round\n');
      const m = await ch.next();
      if (!m) throw new Error(`child ${name} ended`);
      ch.runs.push(m);
    }
  }
  for (const ch of Object.values(children)) ch.c.stdin.write('end\n');
  console.log(`load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${requests} GETs a round, ${connections} connections × ${depth} pipelined, ${backend}`);
  console.log('| build | µs CPU per GET, median [range] | per round |');
  console.log('|---|---:|---|');
  for (const name of names) {
    const xs = children[name].runs.map((m) => m.cpuUs);
    console.log(`| ${name} ${path.basename(builds[name])}${sideArgs[name] ? ` ${sideArgs[name]}` : ''} | ${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}] | ${xs.map((x) => x.toFixed(1)).join(' ')} |`);
    console.log(`| ${name}: reads of answers per GET (client 'data' events) | ${median(children[name].runs.map((m) => m.chunksPerGet)).toFixed(3)} | |`);
    if (has('--bare')) {
      const bs = children[name].runs.map((m) => m.bareCpuUs);
      const ratios = children[name].runs.map((m) => m.bareCpuUs / m.cpuUs);
      console.log(`| bare node:https beside ${name} | ${median(bs).toFixed(1)} [${Math.min(...bs).toFixed(1)}–${Math.max(...bs).toFixed(1)}] | ${bs.map((x) => x.toFixed(1)).join(' ')} |`);
      console.log(`| ${name}: bare ÷ apiserver CPU per GET (GETs per CPU-second against bare), per round | ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}] | |`);
    }
  }
  if (names.length === 2) {
    const ratios = children.A.runs.map((a, i) => children.B.runs[i].cpuUs / a.cpuUs);
    console.log(`B ÷ A, CPU per GET per round: median ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}]`);
    const diffs = children.A.runs.map((a, i) => children.B.runs[i].cpuUs - a.cpuUs);
    console.log(`B − A, µs CPU per GET per round: median ${median(diffs).toFixed(2)} [${Math.min(...diffs).toFixed(2)}–${Math.max(...diffs).toFixed(2)}]`);
  }
  if (has('--profile')) {
    for (const name of names) {
      const m = await children[name].next();
      if (!m?.profile) continue;
      console.log(`\n${has('--heap') ? 'bytes allocated' : 'self time (µs)'} per GET, ${name} ${path.basename(builds[name])}`);
      for (const [fn, v] of m.profile) console.log(`${v.toFixed(has('--heap') ? 0 : 2).padStart(7)}  ${fn}`);
    }
  }
}

if (has('--child')) await child(process.argv[process.argv.indexOf('--child') + 1]);
else await parent();
