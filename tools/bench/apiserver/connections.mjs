#!/usr/bin/env node
// CPU per new client connection: a TLS handshake with the admin client certificate (the dev PKI)
// and one GET of a ClusterTrustBundle on it, then the connection closes, as every kubectl
// invocation and every slice of bench.mjs (fresh keep-alive connections each) does. The same in
// one run against a bare node:https server (bare-server.mjs: same certificates, client
// certificates requested and verified, answers the same bytes), in batches of 16 connections that
// take turns between the servers, CPU time of each server process from /proc.
//
//   node tools/bench/apiserver/connections.mjs [--rounds 5] [--connections 800] [--pin main|all|none]
//                                              [--bundle path/to/main.mjs] [--against path/to/other.mjs]
//                                              [--chain ca|leaf|both] [--json]
//
// Prints per round and then as median [range] over the rounds: µs of server CPU per connection for
// bare and apiserver, their difference and ratio. Each server's idle CPU (timers, controllers),
// measured for 3 s after the warm-up, is subtracted for the wall time of its batches. --chain: what the client sends after its leaf
// certificate. `ca` (the default) is what node's TLS client sends (it appends the issuer it finds
// in its `ca` option: autocannon, bench.mjs); `leaf` is what Go clients such as kubectl send for a
// kubeconfig that holds only the client certificate (this client then does not verify the server:
// loopback only); `both` measures each in every round. --against starts a second apiserver
// bundle (a before/after in the same run, rounds alternating over the three servers). --pin as in
// bench.mjs (default main: servers' main threads on CPU 0, this process on the others). Without
// --bundle it builds this tree's apps/apiserver bundle as the end-to-end tests do.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import {
  benchFlags,
  buildApiServerBundle,
  cpuSeconds,
  pinning,
  root,
  seedBenchTarget,
  startApiServer,
  startBareServer,
} from '../lib/apiserver-harness.mjs';

const { flag, has } = benchFlags();
const rounds = Number(flag('rounds', '5'));
const perRound = Number(flag('connections', '800'));
const pin = pinning.mode(flag('pin', 'main'));
const chainFlag = flag('chain', 'ca');
if (!['ca', 'leaf', 'both'].includes(chainFlag)) throw new Error(`--chain: expected ca, leaf or both, got ${chainFlag}`);
const chains = chainFlag === 'both' ? ['ca', 'leaf'] : [chainFlag];
const getPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench-get';
// How many connections are in flight at once (a handful of concurrent kubectl invocations).
const concurrency = 16;

const bundle = flag('bundle', undefined) ?? (await buildApiServerBundle());
const against = flag('against', undefined);

const servers = [];
const dataDirs = [];
async function startApi(name, file) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-conn-'));
  dataDirs.push(dataDir);
  const api = await startApiServer({ bundle: path.resolve(file), dataDir, args: ['--storage-backend=sqlite', '--v=0'], cwd: root, timeoutMs: 60_000 });
  servers.push({ stop: async () => api.child.kill('SIGTERM') });
  const seeded = await seedBenchTarget(api, dataDir, getPath);
  return { name, pid: api.child.pid, url: seeded.target.url, tlsOptions: seeded.tlsOptions, serving: seeded.serving };
}

/** Client TLS options that send the leaf and the CA (node's default) or the leaf alone (as Go clients do). */
function clientTls(tlsOptions, chain) {
  if (chain === 'ca') return tlsOptions;
  // Without `ca`, node finds no issuer to append; the server is then not verified (loopback).
  return { cert: tlsOptions.cert, key: tlsOptions.key, rejectUnauthorized: false };
}

/** Opens `n` connections at once, one GET on each, and waits for every answer. */
function batch(server, tls, n) {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const agent = new https.Agent({ keepAlive: false, ...tls });
          https
            .get(server.url, { agent, headers: { accept: 'application/json' } }, (res) => {
              if (res.statusCode !== 200) reject(new Error(`${server.name}: GET answered ${res.statusCode}`));
              res.resume();
              res.on('end', resolve);
            })
            .on('error', reject);
        }),
    ),
  );
}

/**
 * `n` connections to each server, in batches of `concurrency` that take turns between the servers
 * (so that a change of the machine's load hits them alike): µs of each server's CPU per connection.
 */
async function connections(servers, chain, n, turn = 0) {
  const cpu = servers.map(() => 0);
  const tls = servers.map((s) => clientTls(s.tlsOptions, chain));
  for (let i = 0; i < n; i += concurrency) {
    const size = Math.min(concurrency, n - i);
    for (let k = 0; k < servers.length; k++) {
      const j = (k + turn + i / concurrency) % servers.length;
      const before = cpuSeconds(servers[j].pid);
      const started = performance.now();
      await batch(servers[j], tls[j], size);
      // Less what the server spends idle in that time (timers, controllers: ~8 ms a second for
      // the apiserver), which depends on how long the batch waited for a CPU, not on connections.
      cpu[j] += cpuSeconds(servers[j].pid) - before - (servers[j].idlePerMs * (performance.now() - started)) / 1000;
    }
  }
  return cpu.map((c) => (c / n) * 1e6);
}

/** CPU seconds a server uses per millisecond while nobody calls it. */
async function idleRate(server, ms = 3000) {
  const before = cpuSeconds(server.pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (cpuSeconds(server.pid) - before) / ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const summary = (xs, digits = 0) => `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}]`;

try {
  const apis = [await startApi('apiserver', bundle)];
  if (against) apis.push(await startApi('against', against));
  const bare = startBareServer(path.join(root, 'tools/bench/apiserver/bare-server.mjs'), apis[0].serving);
  servers.push(bare);
  const barePort = await bare.port;
  const bareServer = { name: 'bare', pid: bare.pid, url: `https://127.0.0.1:${barePort}${getPath}`, tlsOptions: apis[0].tlsOptions };
  const all = [bareServer, ...apis];
  if (pin !== 'none') pinning.loadGenerator();
  for (const s of all) pinning.serverAs(pin, s.pid);

  // Warm-up: JIT-compiled handshake and request paths, caches filled (the client certificate's
  // verification among them), as on a server that has served for a while.
  for (const s of all) s.idlePerMs = 0;
  for (const chain of chains) await connections(all, chain, 400);
  for (const s of all) s.idlePerMs = await idleRate(s);
  if (!has('--json')) console.log(`idle CPU, subtracted for the time of each batch: ${all.map((s) => `${s.name} ${(s.idlePerMs * 1e3 * 1e3).toFixed(1)} ms/s`).join(', ')}`);

  const results = Object.fromEntries(chains.map((c) => [c, Object.fromEntries(all.map((s) => [s.name, []]))]));
  const load0 = os.loadavg()[0];
  for (let r = 0; r < rounds; r++) {
    for (const chain of chains) {
      const us = await connections(all, chain, perRound, r);
      all.forEach((s, j) => results[chain][s.name].push(us[j]));
      const line = all.map((s) => `${s.name} ${results[chain][s.name][r].toFixed(0)}`).join(', ');
      if (!has('--json')) console.log(`round ${r + 1} (chain ${chain}): µs CPU per connection: ${line}`);
    }
  }
  const load = `${load0.toFixed(1)}-${os.loadavg()[0].toFixed(1)}`;
  const report = {};
  for (const chain of chains) {
    const bareUs = results[chain].bare;
    for (const api of apis) {
      const us = results[chain][api.name];
      const diff = us.map((x, i) => x - bareUs[i]);
      const ratio = us.map((x, i) => bareUs[i] / x);
      report[`${chain}/${api.name}`] = { bare: median(bareUs), api: median(us), difference: median(diff), ratio: median(ratio), rounds: us.length };
      if (!has('--json')) {
        console.log(
          `chain ${chain}, ${api.name}: µs CPU per new connection + GET: bare ${summary(bareUs)}, ${api.name} ${summary(us)}; ` +
            `difference ${summary(diff)}; bare/${api.name} ${summary(ratio, 3)} (median [range] of ${rounds} rounds of ${perRound}, load ${load})`,
        );
      }
    }
  }
  if (has('--json')) console.log(JSON.stringify({ load, perRound, report }));
} finally {
  for (const s of servers) await s.stop();
  for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
}
process.exit(0);
