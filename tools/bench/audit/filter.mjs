#!/usr/bin/env node
// What one audited GET costs in the audit filters and the log backend alone, in one process, without
// HTTP: the filters of packages/server with the recommended policy of docs/audit.md and the log
// backend in batch mode (to a temporary file) where the server's handler chain has them (the
// failed-authentication audit outside a stand-in for authentication, which gives each request a
// user as the client-certificate authenticator does (one deep-frozen user for all of a client's requests), the audit filter inside it) around a
// handler that does what a GET's handler does for auditing (the authorization annotations, the
// response object), against the stand-in and the handler without the filters. Requests come `--per-turn` to an event-loop turn, as at a server under load.
// CPU is the whole process's (the background writes of libuv's pool and V8's helper threads count).
//
//   node tools/bench/audit/filter.mjs [--requests 50000] [--rounds 7] [--per-turn 2]
//
// Prints the extra CPU per request (median and range over the rounds) and one line of the log.
// Complements bench.mjs: that one measures the ratio a client sees; this one isolates the audit
// code, so its figure barely moves with the load of the machine or of the load generator.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { benchFlags } from '../lib/apiserver-harness.mjs';
import { importSources } from '../lib/import-sources.mjs';
import { recommendedPolicy } from './policy.mjs';

const { flag } = benchFlags();
const requests = Number(flag('requests', '50000'));
const rounds = Number(flag('rounds', '7'));
const perTurn = Number(flag('per-turn', '2'));

const m = await importSources(`
  export { createAuditBackend, createAuditMetrics, defaultLogBatchConfig, newPolicyRuleEvaluator, decisionAnnotationKey, reasonAnnotationKey } from '@plat/audit';
  export { loadAuditPolicy } from '@plat/config';
  export { auditFailedAuthentication, completeRequestAudit, withAudit } from './packages/server/src/filters/audit.ts';
  export { Registry } from 'prom-client';
`);

const loaded = m.loadAuditPolicy(recommendedPolicy());
if (!loaded.ok) throw new Error(`the recommended policy does not load: ${JSON.stringify(loaded.errors)}`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-audit-filter-'));
const metrics = m.createAuditMetrics(new m.Registry());
const backend = m.createAuditBackend(
  { log: { path: path.join(dir, 'audit.log'), format: 'json', maxAgeDays: 366, maxBackups: 100, maxSizeMB: 100, mode: 'batch', batch: m.defaultLogBatchConfig } },
  { metrics },
);
const bundle = { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'bench', uid: 'a1b2', resourceVersion: '12' }, spec: { trustBundle: '-----BEGIN CERTIFICATE-----' } };
const handler = async (ctx) => {
  ctx.audit?.addAuthorizationAnnotations('allow', '');
  ctx.audit?.logResponseObject(bundle);
  ctx.res.headersSent = true;
};
// As withAuthentication with the client-certificate authenticator: the requests of a verified
// chain share one deep-frozen user (packages/auth x509-authenticator.ts, union-authenticator.ts).
const user = Object.freeze({ username: 'system:admin', groups: Object.freeze(['system:masters', 'system:authenticated']) });
const authenticated = (next) => async (ctx) => {
  ctx.user = user;
  await next(ctx);
};
const audit = { evaluator: m.newPolicyRuleEvaluator(loaded.config), backend, metrics };
// As the request accounting filter (packages/server filters/request-accounting.ts), outermost: it
// sends the request's event at ResponseComplete once the handler is done (both sides alike).
const handled = (ctx) => (ctx.audit === undefined ? undefined : m.completeRequestAudit(ctx, ctx.audit));
const accounted = (next) => (ctx) => next(ctx).then(() => handled(ctx));
const plain = accounted(authenticated(handler));
// (The failed-authentication audit runs only after a 401: nothing for these requests.)
const audited = accounted(authenticated(m.withAudit(audit)(handler)));
const info = {
  verb: 'get',
  isResourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: 'v1alpha1',
  resource: 'clustertrustbundles',
  name: 'bench',
  path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench',
};
const req = { url: info.path, headers: { host: '127.0.0.1', 'user-agent': 'autocannon', accept: 'application/json' }, rawHeaders: ['Host', '127.0.0.1', 'User-Agent', 'autocannon', 'Accept', 'application/json'], socket: { remoteAddress: '::ffff:127.0.0.1' } };
// The fields of a request context the filter reads (packages/server/src/context.ts).
const context = () => ({ req, res: { statusCode: 200, headersSent: false }, path: info.path, info, user: undefined, auditId: randomUUID(), startTime: process.hrtime.bigint(), longRunning: false });

async function run(h, n) {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i += perTurn) {
    for (let j = 0; j < perTurn; j++) await h(context());
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

try {
  await run(audited, 20_000); // warm-up: JIT, the log file, the first slabs
  await run(plain, 20_000);
  const extra = [];
  for (let r = 0; r < rounds; r++) {
    const off = await run(plain, requests);
    const on = await run(audited, requests);
    extra.push(on - off);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the last write
  }
  await backend.shutdown();
  extra.sort((a, b) => a - b);
  const median = extra.length % 2 ? extra[extra.length >> 1] : (extra[extra.length / 2 - 1] + extra[extra.length / 2]) / 2;
  console.log(`audit filter + log backend (batch), recommended policy, GET at Metadata: ${median.toFixed(2)} µs CPU a request [${extra[0].toFixed(2)}–${extra.at(-1).toFixed(2)}] over ${rounds} rounds of ${requests}`);
  console.log(fs.readFileSync(path.join(dir, 'audit.log'), 'utf8').split('\n', 1)[0]);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
