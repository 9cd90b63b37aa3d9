#!/usr/bin/env node
// What one audited GET costs in the audit filter and the batch log backend (as filter.mjs measures
// it), for the checked-out tree against another commit, in one process, round by round, so that
// the machine's load hits both alike: the commit's packages/audit and packages/server sources
// (git archive) are bundled beside the tree's. The other commit's chain is taken as it was (its
// failed-authentication filter around every request, when it had one).
//
//   node tools/bench/audit/filter-ab.mjs REV [--rounds 9]
//
// Prints the extra CPU per request over the same handler without auditing for both, and their
// ratio per round (median and range).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { benchFlags, root } from '../lib/apiserver-harness.mjs';
import { recommendedPolicy } from './policy.mjs';

const { flag } = benchFlags();
const rev = process.argv[2];
if (!rev || rev.startsWith('--')) {
  console.error('usage: filter-ab.mjs REV [--rounds 9]');
  process.exit(2);
}
const rounds = Number(flag('rounds', '9'));
const oldTree = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-ab-'));
execFileSync('sh', ['-c', `git -C "${root}" archive "${rev}" packages/audit/src packages/server/src | tar -x -C "${oldTree}"`]);

/** The filter's module and @plat/audit bundled from `sources` (the tree's, or the other commit's through `auditIndex`). */
async function load(tag, filterModule, auditIndex) {
  const outfile = path.join(os.tmpdir(), `plat-bench-audit-ab-${tag}-${process.pid}.mjs`);
  await build({
    absWorkingDir: root,
    stdin: {
      contents: `
        export { createAuditBackend, createAuditMetrics, defaultLogBatchConfig, newPolicyRuleEvaluator } from '@plat/audit';
        export { loadAuditPolicy } from '@plat/config';
        export * from '${filterModule}';
        export { Registry } from 'prom-client';`,
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@plat/source'],
    // The other commit's sources sit outside the tree: their imports resolve from the tree's node_modules.
    nodePaths: [path.join(root, 'node_modules')],
    alias: auditIndex ? { '@plat/audit': auditIndex } : {},
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
    logLevel: 'error',
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    fs.rmSync(outfile);
  }
}

const variants = {
  old: await load('old', path.join(oldTree, 'packages/server/src/filters/audit.ts'), path.join(oldTree, 'packages/audit/src/index.ts')),
  new: await load('new', './packages/server/src/filters/audit.ts'),
};
fs.rmSync(oldTree, { recursive: true, force: true });
const policyText = recommendedPolicy();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-ab-log-'));
const info = { verb: 'get', isResourceRequest: true, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles', name: 'bench', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench' };
const bundle = { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'bench', uid: 'a1b2', resourceVersion: '12' }, spec: { trustBundle: '-----BEGIN CERTIFICATE-----' } };
const baseUser = Object.freeze({ username: 'system:admin', groups: Object.freeze(['system:masters', 'system:authenticated']) });
const req = { url: info.path, headers: { host: '127.0.0.1', 'user-agent': 'autocannon', accept: 'application/json' }, rawHeaders: ['Host', '127.0.0.1', 'User-Agent', 'autocannon', 'Accept', 'application/json'], socket: { remoteAddress: '::ffff:127.0.0.1' } };
const handlers = {};
for (const [name, m] of Object.entries(variants)) {
  const loaded = m.loadAuditPolicy(policyText);
  if (!loaded.ok) throw new Error(`the recommended policy does not load: ${JSON.stringify(loaded.errors)}`);
  const metrics = m.createAuditMetrics(new m.Registry());
  const backend = m.createAuditBackend(
    { log: { path: path.join(dir, `${name}.log`), format: 'json', maxAgeDays: 366, maxBackups: 100, maxSizeMB: 100, mode: 'batch', batch: m.defaultLogBatchConfig } },
    { metrics },
  );
  // What a GET's handler and the authorization filter do for auditing.
  const handler = async (ctx) => {
    if (ctx.audit?.addAuthorizationAnnotations) ctx.audit.addAuthorizationAnnotations('allow', '');
    else {
      ctx.audit?.addAnnotation('authorization.k8s.io/decision', 'allow');
      ctx.audit?.addAnnotation('authorization.k8s.io/reason', '');
    }
    ctx.audit?.logResponseObject(bundle);
    ctx.res.headersSent = true;
  };
  // As withAuthentication with the client-certificate authenticator: the requests of a verified
  // chain share one deep-frozen user (packages/auth x509-authenticator.ts, union-authenticator.ts).
  const authenticated = (next) => async (ctx) => {
    ctx.user = baseUser;
    await next(ctx);
  };
  const audit = { evaluator: m.newPolicyRuleEvaluator(loaded.config), backend, metrics };
  const inner = authenticated(m.withAudit(audit)(handler));
  // A chain that had the failed-authentication audit as a filter wrapped every request in it.
  const audited = m.withFailedAuthenticationAudit ? m.withFailedAuthenticationAudit(audit)(inner) : inner;
  // A tree whose audit filter leaves ResponseComplete to request accounting (completeRequestAudit):
  // as that filter, outermost, once the handler is done; both sides alike.
  const accounted = m.completeRequestAudit ? (next) => (ctx) => next(ctx).then(() => (ctx.audit === undefined ? undefined : m.completeRequestAudit(ctx, ctx.audit))) : (next) => (ctx) => next(ctx).then(() => undefined);
  handlers[name] = { backend, audited: accounted(audited), plain: accounted(authenticated(handler)) };
}
const context = () => ({ req, res: { statusCode: 200, headersSent: false }, path: info.path, info, auditId: randomUUID(), startTime: process.hrtime.bigint(), longRunning: false });

/** CPU per request of `n` requests through `h`, two to an event-loop turn. */
async function run(h, n) {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i += 2) {
    await h(context());
    await h(context());
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

try {
  for (const v of Object.values(handlers)) {
    await run(v.audited, 20_000); // warm-up: JIT, the log file, the first slabs
    await run(v.plain, 20_000);
  }
  const extra = { old: [], new: [] };
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? ['new', 'old'] : ['old', 'new']) {
      const off = await run(handlers[name].plain, 30_000);
      const on = await run(handlers[name].audited, 30_000);
      extra[name].push(on - off);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the last write
    }
  }
  const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
  const fmt = (v, digits = 2) => `${median(v).toFixed(digits)} [${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)}]`;
  const ratio = extra.new.map((x, i) => x / extra.old[i]);
  console.log(`extra CPU per audited GET (filter + batch log backend, in one process), median [range] of ${rounds} rounds; load ${os.loadavg()[0].toFixed(1)}`);
  console.log(`${rev}: ${fmt(extra.old)} µs; this tree: ${fmt(extra.new)} µs; this tree ÷ ${rev}, per round: ${fmt(ratio)}`);
} finally {
  for (const v of Object.values(handlers)) await v.backend.shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
}
