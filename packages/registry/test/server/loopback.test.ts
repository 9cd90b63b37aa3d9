import { Registry } from 'prom-client';
import { createAuditMetrics, newPolicyRuleEvaluator, type AuditBackend, type AuditEvent } from '@plat/audit';
import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { isStatusError, type ApiObject } from '@plat/api-model';
import { namespaceResource, rbacResources } from '../../src/index.js';
import { bundle, ctbPath, startCluster, type TestCluster } from '../cluster.js';

function memoryBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { name: 'memory', events, processEvents: (evs) => (events.push(...evs), true), shutdown: async () => undefined };
}

const rolesPath = '/apis/rbac.authorization.plat.io/v1/clusterroles';

// The server's client to itself walks the chain an HTTPS request walks, as kube-apiserver's
// loopback client does (k8s.io/apiserver/pkg/server/config.go AuthorizeClientBearerToken: the
// user system:apiserver in system:masters).
describe('the loopback client', () => {
  let c: TestCluster;
  const backend = memoryBackend();
  beforeAll(async () => {
    c = await startCluster({
      resources: [namespaceResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) })],
      audit: { evaluator: newPolicyRuleEvaluator({ rules: [{ level: 'Metadata' }] }), backend, metrics: createAuditMetrics(new Registry()) },
    });
  });
  afterAll(async () => {
    await c.close();
  });

  it('creates through validation, defaulting and managedFields, as plat-apiserver', async () => {
    const role = await c.server.loopback.create(rolesPath, { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'ClusterRole', metadata: { name: 'widget-reader' }, rules: [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }] });
    expect(role.metadata).toMatchObject({ name: 'widget-reader', uid: expect.any(String), resourceVersion: expect.any(String), creationTimestamp: expect.any(String) });
    expect(role.metadata?.managedFields).toEqual([expect.objectContaining({ manager: 'plat-apiserver', operation: 'Update', apiVersion: 'rbac.authorization.plat.io/v1' })]);
    // The same object read over HTTPS.
    const res = await c.req('admin', 'GET', `${rolesPath}/widget-reader`);
    expect(res.json).toMatchObject({ metadata: { uid: role.metadata?.uid } });
  });

  it('is refused an invalid object with the Status an HTTP client gets', async () => {
    const invalid: ApiObject = { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'ClusterRole', metadata: { name: 'broken' }, rules: [{ verbs: [], apiGroups: [''], resources: ['pods'] }] };
    const overHttp = await c.req('admin', 'POST', rolesPath, { body: invalid });
    expect(overHttp.status).toBe(422);
    let refused: unknown;
    await c.server.loopback.create(rolesPath, invalid).catch((err: unknown) => (refused = err));
    expect(isStatusError(refused, 'Invalid')).toBe(true);
    const status = (refused as { status: Record<string, unknown> }).status;
    expect({ ...status, metadata: {} }).toEqual({ ...(overHttp.json as Record<string, unknown>), metadata: {} });
    expect(await c.server.loopback.request({ method: 'GET', path: `${rolesPath}/broken` })).toMatchObject({ status: 404 });
  });

  it('runs admission: a system namespace may not be deleted, not even by the server', async () => {
    await c.server.loopback.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    await expect(c.server.loopback.delete('/api/v1/namespaces/default')).rejects.toMatchObject({ status: { reason: 'Forbidden', code: 403 } });
  });

  it('is audited as system:apiserver in system:masters, from 127.0.0.1', async () => {
    const res = await c.server.loopback.request({ method: 'GET', path: `${rolesPath}/widget-reader` });
    expect(res.status).toBe(200);
    const auditID = String(res.headers['audit-id']);
    const complete = backend.events.find((e) => e.auditID === auditID && e.stage === 'ResponseComplete');
    expect(complete).toMatchObject({
      verb: 'get',
      user: { username: 'system:apiserver', uid: c.server.loopback.user.uid, groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: expect.stringMatching(/^plat-apiserver\/v/),
      responseStatus: { code: 200 },
    });
  });

  it('writes nothing but answers what the server answers for resources it does not serve', async () => {
    const res = await c.server.loopback.request({ method: 'POST', path: ctbPath, body: bundle('example.com:x:a', c.anchorPem) });
    expect(res.status).toBe(404);
  });
});
