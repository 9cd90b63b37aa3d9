import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createAuditBackend, createAuditMetrics, newPolicyRuleEvaluator, RequestAudit, defaultLogBatchConfig } from '@plat/audit';
import { loadAuditPolicy } from '@plat/config';

// A Kubernetes Policy file: bodies of writes to trust anchors, metadata of everything else.
const loaded = loadAuditPolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
  verbs: [create, update, patch, delete]
  resources: [{group: certificates.plat.io, resources: [clustertrustbundles]}]
- level: Metadata
`);
assert.ok(loaded.ok);
const evaluator = newPolicyRuleEvaluator(loaded.config);

// The log backend in blocking mode, writing JSON lines to a file.
const metrics = createAuditMetrics(new Registry());
const path = join(mkdtempSync(join(tmpdir(), 'audit-example-')), 'audit.log');
const backend = createAuditBackend(
  { log: { path, format: 'json', maxAgeDays: 366, maxBackups: 100, maxSizeMB: 100, mode: 'blocking', batch: defaultLogBatchConfig } },
  { metrics },
)!;

// One request, as the server's audit filter records it.
const attrs = { user: { username: 'alice', groups: ['system:authenticated'] }, verb: 'create', resourceRequest: true, apiGroup: 'certificates.plat.io', resource: 'clustertrustbundles', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles' };
const config = evaluator.evaluate(attrs);
assert.equal(config.level, 'RequestResponse');
const audit = new RequestAudit(config, backend, metrics, {
  auditID: '7d1b8a3e-0c1f-4a49-9b63-1f2e3d4c5b6a',
  requestReceivedMicros: Date.now() * 1000,
  verb: 'create',
  requestURI: attrs.path,
  user: { username: 'alice', groups: ['system:authenticated'] },
  sourceIPs: ['192.0.2.10'],
  objectRef: { resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
});
audit.processStage('RequestReceived');
const bundle = { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'example.com:ca:1' }, spec: { signerName: 'example.com/ca', trustBundle: '...' } };
audit.logRequestObject(bundle);
audit.addAnnotation('authorization.k8s.io/decision', 'allow');
audit.logResponseObject(bundle);
audit.setResponseCode(201);
audit.processStage('ResponseComplete');
await backend.shutdown();

const events = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
assert.equal(events[1].objectRef.name, 'example.com:ca:1');
assert.equal(events[1].responseStatus.code, 201);
console.log(`${events[1].user.username} ${events[1].verb} ${events[1].objectRef.name}: ${events[1].annotations['authorization.k8s.io/decision']}`);
