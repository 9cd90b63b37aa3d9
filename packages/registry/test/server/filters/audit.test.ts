import { Registry } from 'prom-client';
import { createAuditMetrics, newPolicyRuleEvaluator, type AuditBackend, type AuditEvent } from '@plat/audit';
import type { ServerAudit } from '@plat/server';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

/** A backend that keeps what it is given, in memory (what a test reads back). */
function memoryBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { name: 'memory', events, processEvents: (evs) => (events.push(...evs), true), shutdown: async () => undefined };
}

function serverAudit(backend: AuditBackend, level: 'Metadata' | 'RequestResponse' = 'RequestResponse'): ServerAudit {
  return { evaluator: newPolicyRuleEvaluator({ rules: [{ level: 'None', nonResourceURLs: ['/healthz'] }, { level }] }), backend, metrics: createAuditMetrics(new Registry()) };
}

// The filter's place and its annotation points (k8s.io/apiserver pkg/endpoints/filters/audit_test.go
// TestAudit, authorization_test.go TestAuditAnnotation).
describe('audit filter', () => {
  let c: TestCluster;
  const backend = memoryBackend();
  beforeAll(async () => {
    c = await startCluster({ audit: serverAudit(backend) });
  });
  afterAll(async () => {
    await c.close();
  });
  const ofRequest = (auditID: string) => backend.events.filter((e) => e.auditID === auditID);

  it('records an allowed write with the decision, the attest signer, the bodies and the Audit-Id header', async () => {
    const res = await c.req('admin', 'POST', ctbPath, { body: { ...bundle('example.com:x:a', c.anchorPem), spec: { signerName: 'example.com/x', trustBundle: c.anchorPem } } });
    expect(res.status).toBe(201);
    const auditID = String(res.headers['audit-id']);
    const evs = ofRequest(auditID);
    expect(evs.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(evs[1]).toMatchObject({
      level: 'RequestResponse',
      verb: 'create',
      user: { username: 'admin', groups: expect.arrayContaining(['system:masters']) },
      objectRef: { resource: 'clustertrustbundles', name: 'example.com:x:a', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
      responseStatus: { code: 201 },
      requestObject: { metadata: { name: 'example.com:x:a' } },
      responseObject: { metadata: { name: 'example.com:x:a', uid: expect.any(String) } },
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '', 'clustertrustbundleattest.admission.plat.io/signer': 'example.com/x' },
    });
    // As in Kubernetes, the reference takes its resourceVersion from the request body (an update's), not the response.
    expect(evs[1]!.objectRef!.resourceVersion).toBeUndefined();
  });

  it('records a denial with decision forbid and the 403 Status', async () => {
    const res = await c.req('reader', 'DELETE', `${ctbPath}/example.com:x:a`);
    expect(res.status).toBe(403);
    const evs = ofRequest(String(res.headers['audit-id']));
    expect(evs[1]).toMatchObject({
      verb: 'delete',
      user: { username: 'reader' },
      responseStatus: { code: 403, status: 'Failure', reason: 'Forbidden' },
      responseObject: { kind: 'Status', reason: 'Forbidden' },
      annotations: { 'authorization.k8s.io/decision': 'forbid' },
    });
  });

  it('records the impersonated user beside the one who asked, and matches the policy on the asker', async () => {
    const res = await c.req('nsUser', 'GET', ctbPath, { headers: { 'impersonate-user': 'system:serviceaccount:team-a:builder' } });
    expect(res.status).toBe(200);
    const evs = ofRequest(String(res.headers['audit-id']));
    // RequestReceived comes before impersonation, as in Kubernetes.
    expect(evs[0]!.impersonatedUser).toBeUndefined();
    expect(evs[1]).toMatchObject({ user: { username: 'ns-user' }, impersonatedUser: { username: 'system:serviceaccount:team-a:builder' }, verb: 'list' });
  });

  it('records nothing at level None', async () => {
    const before = backend.events.length;
    expect((await c.req('admin', 'GET', '/healthz')).status).toBe(200);
    expect(backend.events.length).toBe(before);
  });

  it('records a refused credential once, at ResponseStarted, without a user and without the token (WithFailedAuthenticationAudit)', async () => {
    const res = await c.req('anonymous', 'GET', ctbPath, { headers: { authorization: 'Bearer wrong-secret-token' } });
    expect(res.status).toBe(401);
    const evs = ofRequest(String(res.headers['audit-id']));
    expect(evs).toEqual([
      expect.objectContaining({
        stage: 'ResponseStarted',
        verb: 'list',
        user: {},
        responseStatus: { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 },
        objectRef: { resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
      }),
    ]);
    expect(JSON.stringify(evs)).not.toContain('wrong-secret-token');
  });
});
