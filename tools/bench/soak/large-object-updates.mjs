#!/usr/bin/env node
// Memory of repeated updates of one large object (issue 16, finding 5): label updates of a
// ClusterTrustBundle of about 985 KiB on a started apiserver, with the server's RSS before,
// along the way and after.
//
//   node tools/bench/soak/large-object-updates.mjs [--updates 200] [--backend sqlite|memory] [--json] [-- apiserver flags...]
//
// Flags after `--` go to the apiserver (for example `--watch-cache=false` or
// `--watch-cache-window-bytes=16Mi`). It prints RSS (MiB) at the start, every 50 updates and 5 s
// after the last, with the watch cache window and the V8 heap from /metrics.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, benchFlags, buildApiServerBundle, startApiServer } from '../lib/apiserver-harness.mjs';
import { bigTrustBundle } from './big-bundle.mjs';

const dashes = process.argv.indexOf('--');
const { flag, has } = benchFlags(dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes));
const serverArgs = dashes < 0 ? [] : process.argv.slice(dashes + 1);
const updates = Number(flag('updates', '200'));
const backend = flag('backend', 'sqlite');
const asJson = has('--json');
const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

const bundle = await buildApiServerBundle();
const pem = await bigTrustBundle();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-large-updates-'));
const server = await startApiServer({ bundle, dataDir, args: [`--storage-backend=${backend}`, ...serverArgs] });
const { url } = server;
const dispatcher = new Agent({ connect: adminCredentials(path.join(dataDir, 'admin.conf')) });
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))[1]) / 1024);
async function gauges() {
  const text = await (await request(`${url}/metrics`, { dispatcher })).body.text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const mib = (name) => Math.round(value(name) / 1048576);
  return { heapUsedMiB: mib('nodejs_heap_size_used_bytes'), windowEvents: value('apiserver_watch_cache_window_events'), windowMiB: mib('apiserver_watch_cache_window_bytes') };
}

const created = await request(`${url}${collection}`, {
  method: 'POST',
  dispatcher,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'large' }, spec: { trustBundle: pem } }),
});
if (created.statusCode !== 201) throw new Error(`create: ${created.statusCode} ${await created.body.text()}`);
await created.body.text();
const samples = [{ updates: 0, rssMiB: rss(), ...(await gauges()) }];
for (let i = 1; i <= updates; i++) {
  const res = await request(`${url}${collection}/large`, { method: 'PATCH', dispatcher, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { update: String(i) } } }) });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`update ${i}: ${res.statusCode}`);
  if (i % 50 === 0 || i === updates) samples.push({ updates: i, rssMiB: rss() });
}
await new Promise((r) => setTimeout(r, 5000));
samples.push({ updates, after: '5 s', rssMiB: rss(), ...(await gauges()) });
await server.stop();
await dispatcher.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (asJson) console.log(JSON.stringify({ backend, serverArgs, objectKiB: Math.round(pem.length / 1024), samples }, null, 2));
else {
  console.log(`${updates} label updates of a ${Math.round(pem.length / 1024)} KiB bundle, ${backend}${serverArgs.length ? ` (${serverArgs.join(' ')})` : ''}`);
  const details = (s) =>
    s.heapUsedMiB === undefined ? '' : `${Number.isNaN(s.windowEvents) ? ', no watch cache' : `, watch cache window ${s.windowEvents} events / ${s.windowMiB} MiB`}, heap used ${s.heapUsedMiB} MiB`;
  for (const s of samples) console.log(`  ${s.after ? `${s.after} after` : `after ${s.updates}`}: RSS ${s.rssMiB} MiB${details(s)}`);
}
process.exit(0);
