#!/usr/bin/env node
// Bisection of the gap between the apiserver and the bare node:https server: bare servers that
// take on the apiserver's traits one at a time (bare-variant-server.mjs lists them), and the
// apiserver itself, run at once and measured in alternating slices; CPU per GET of each, and as a
// ratio of the bare server's in the same round.
//
//   node tools/bench/apiserver/bare-variants.mjs [--variants "tls,http2,limits,headers,peer,v8,heap,promises,all"]
//                                                [--rounds 4] [--duration 3] [--connections 16] [--pin]
// Traits joined by "+" make one variant: "busy,busy+coalesce" compares a bare server slower than
// its client with and without its responses coalesced per event-loop turn. `all` takes the
// apiserver's traits (not busy or coalesce).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchFlags, buildApiServerBundle, cannonWith, measuredSlice, mergeSlices, pinning, root, seedBenchTarget, startApiServer, startBareServer } from '../lib/apiserver-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { flag, has } = benchFlags();
const allTraits = ['tls', 'http2', 'limits', 'headers', 'peer', 'v8', 'heap', 'promises'];
const variants = flag('variants', [...allTraits, 'all'].join(',')).split(',').filter(Boolean);
const rounds = Number(flag('rounds', '4'));
const cannon = cannonWith({ connections: Number(flag('connections', '16')), duration: Number(flag('duration', '3')) });
const pin = has('--pin');
const getPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench-get';

function startVariant(serving, traits) {
  return startBareServer(path.join(here, 'bare-variant-server.mjs'), { ...serving, traits });
}

if (pin) pinning.loadGenerator();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bare-variants-'));
const servers = [];
try {
  const bundle = await buildApiServerBundle();
  const api = await startApiServer({ bundle, dataDir, args: ['--storage-backend=sqlite', '--v=0'], cwd: root, timeoutMs: 60_000 });
  servers.push({ name: 'apiserver', child: api.child, stop: () => api.stop() });
  const { tlsOptions, target, serving } = await seedBenchTarget(api, dataDir, getPath);
  servers[0].target = target;
  for (const v of ['bare', ...variants]) {
    const traits = v === 'bare' ? [] : v === 'all' ? allTraits : v.split('+');
    const s = startVariant(serving, traits);
    const port = await s.port;
    servers.push({ name: v, child: s.child, stop: s.stop, target: { url: `https://127.0.0.1:${port}${getPath}`, tlsOptions, headers: { accept: 'application/json' } } });
  }
  for (const s of servers) {
    if (pin) pinning.server(s.child.pid);
    s.runs = [];
    await cannon({ ...s.target, duration: 2 });
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) s.runs.push(await measuredSlice(cannon, s.child.pid, s.target));
  }
  const bare = servers.find((s) => s.name === 'bare');
  const perRound = (s) => s.runs.map((x) => (1e6 * x.cpu) / x.total);
  const ratios = (s) => perRound(s).map((us, i) => perRound(bare)[i] / us).sort((a, b) => a - b);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${rounds} rounds`);
  console.log('| server | µs CPU per GET | bare ÷ this per round, median [range] |');
  console.log('|---|---:|---|');
  for (const s of servers) {
    const m = mergeSlices(s.runs);
    const r = ratios(s);
    console.log(`| ${s.name} | ${(1e6 / m.perCpuSecond).toFixed(1)} | ${r[Math.floor(r.length / 2)].toFixed(2)} [${r[0].toFixed(2)}–${r[r.length - 1].toFixed(2)}] |`);
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
