#!/usr/bin/env node
// CPU per new client connection: a TLS handshake with the admin client certificate (the dev PKI)
// and one GET of a ClusterTrustBundle on it, then the connection closes, as every kubectl
// invocation and every slice of bench.mjs (fresh keep-alive connections each) does. The same in
// one run against a bare node:https server (bare-server.mjs: same certificates, client
// certificates requested and verified, answers the same bytes), rounds alternating between the
// two, CPU time of each server process from /proc.
//
//   node tools/bench/apiserver/connections.mjs [--rounds 5] [--connections 800] [--pin main|all|none]
//                                              [--bundle path/to/main.mjs] [--against path/to/other.mjs]
//                                              [--chain ca|leaf|both] [--json]
//
// Prints per round and then as median [range] over the rounds: µs of server CPU per connection for
// bare and apiserver, their difference and ratio. --chain: what the client sends after its leaf
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

/** Opens `n` connections (concurrency at a time), one GET on each; µs of the server's CPU per connection. */
async function connections(server, chain, n) {
  const tls = clientTls(server.tlsOptions, chain);
  const before = cpuSeconds(server.pid);
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(
      Array.from(
        { length: Math.min(concurrency, n - i) },
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
  return ((cpuSeconds(server.pid) - before) / n) * 1e6;
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
  for (const chain of chains) for (const s of all) await connections(s, chain, 400);

  const results = Object.fromEntries(chains.map((c) => [c, Object.fromEntries(all.map((s) => [s.name, []]))]));
  const load0 = os.loadavg()[0];
  for (let r = 0; r < rounds; r++) {
    for (const chain of chains) {
      // Alternate which server goes first, so that a load change within a round hits both alike.
      const order = r % 2 ? [...all].reverse() : all;
      for (const s of order) results[chain][s.name].push(await connections(s, chain, perRound));
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
