#!/usr/bin/env node
// A GET's event as the audit filter has RequestAudit build it (Metadata, ResponseComplete, the
// shared frozen user, object reference and source IPs, a fresh audit ID) and its line written into
// a slab by encodeEventInto eight at a time (as batch mode's flush), for the checked-out tree
// against another commit's packages/audit, in one process, the two taking turns round by round
// (which goes first alternates). Finer than filter-ab.mjs for changes of a tenth of a µs: no
// filter, no promise, no background write. Run it pinned to one CPU on a loaded machine:
//
//   taskset -c 1 node tools/bench/audit/encode-ab.mjs REV [--rounds 21]
//
// Prints CPU per event of both (median) and the tree's ÷ REV's per round (median [range]).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const rev = process.argv[2];
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 21;
if (!rev || rev.startsWith('--')) {
  console.error('usage: encode-ab.mjs REV [--rounds 21]');
  process.exit(2);
}
const old = fs.mkdtempSync(path.join(os.tmpdir(), 'a6-enc-'));
execFileSync('sh', ['-c', `git -C "${root}" archive "${rev}" packages/audit/src | tar -x -C "${old}"`]);
async function load(tag, dir) {
  const outfile = path.join(os.tmpdir(), `a6-enc-${tag}-${process.pid}.mjs`);
  await build({ absWorkingDir: root, stdin: { contents: `export { RequestAudit, noAuditMetrics } from '${dir}/packages/audit/src/index.ts'; export { encodeEventInto } from '${dir}/packages/audit/src/event-json.ts';`, resolveDir: root, loader: 'ts' },
    outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', conditions: ['@plat/source'], nodePaths: [path.join(root, 'node_modules')], logLevel: 'error', banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } });
  return import(pathToFileURL(outfile).href);
}
const A = await load('a', old), B = await load('b', root);
const user = Object.freeze({ username: 'system:admin', groups: Object.freeze(['system:masters', 'system:authenticated']) });
const ref = Object.freeze({ resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
const ips = Object.freeze(['127.0.0.1']);
const uriBytes = Buffer.from('/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench');
const config = { level: 'Metadata', omitStages: new Set(['RequestReceived']), omitManagedFields: false };
function run(m, n) {
  const slab = Buffer.allocUnsafeSlow(256 * 1024);
  let at = 0;
  const captured = [];
  const backend = { name: 'x', writesPendingTimes: true, processEvents(evs) { captured.push(evs[0]); return true; }, shutdown: async () => {} };
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    // A new flat string each request, as the HTTP parser makes it.
    const url = uriBytes.toString('latin1');
    const ra = new m.RequestAudit(config, backend, m.noAuditMetrics, { auditID: randomUUID(), requestReceivedMicros: Date.now() * 1000 + (i % 1000), verb: 'get', requestURI: url, user, sourceIPs: ips, userAgent: 'autocannon', objectRef: ref });
    ra.addAuthorizationAnnotations('allow', '');
    ra.setResponseCode(200);
    ra.processStage('ResponseComplete');
    if ((i & 7) === 7) {
      for (const ev of captured) { if (at > slab.length - 8192) at = 0; const e = m.encodeEventInto(ev, slab, at, slab.length); if (e < 0) throw new Error('declined'); at = e + 1; }
      captured.length = 0;
    }
  }
  const u = process.cpuUsage(t0);
  return (u.user + u.system) * 1000 / n;
}
run(A, 50000); // warm-up
run(B, 50000);
const r = [];
for (let i = 0; i < rounds; i++) { let a, b; if (i & 1) { b = run(B, 100000); a = run(A, 100000); } else { a = run(A, 100000); b = run(B, 100000); } r.push([a, b, b / a]); }
const med = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
console.log(`A ${rev}: ${med(r.map((x) => x[0])).toFixed(0)} ns; B tree: ${med(r.map((x) => x[1])).toFixed(0)} ns; B/A ${med(r.map((x) => x[2])).toFixed(3)} [${Math.min(...r.map((x) => x[2])).toFixed(3)}–${Math.max(...r.map((x) => x[2])).toFixed(3)}] n=${rounds}`);
fs.rmSync(old, { recursive: true, force: true });
