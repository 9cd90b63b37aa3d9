import type { AuditLevel, AuditStage } from '@plat/config';
import type { AuditBackend } from './backend.js';
import { makeTimestamps, type AuditEvent } from './event.js';
import { noAuditMetrics } from './metrics.js';
import { RequestAudit } from './request-audit.js';

function recorder(level: AuditLevel, omit: AuditStage[] = [], omitManagedFields = false) {
  const seen: AuditEvent[] = [];
  const backend: AuditBackend = { name: 'test', processEvents: (evs) => (seen.push(...evs), true), shutdown: async () => undefined };
  const ra = new RequestAudit({ level, omitStages: new Set(omit), omitManagedFields }, backend, noAuditMetrics, {
    auditID: '5f2c0d8e-1111-4a5b-9c3d-000000000001',
    requestReceivedMicros: Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 123,
    verb: 'create',
    requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?fieldManager=kubectl-create',
    user: { username: 'writer', uid: 'u1', groups: ['writers', 'system:authenticated'] },
    sourceIPs: ['127.0.0.1'],
    userAgent: 'kubectl/v1.32.0',
    objectRef: { resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
  });
  return { ra, seen };
}

const bundle = {
  apiVersion: 'certificates.plat.io/v1alpha1',
  kind: 'ClusterTrustBundle',
  metadata: { name: 'example.com:a:b', uid: 'uid-1', resourceVersion: '42', managedFields: [{ manager: 'kubectl' }] },
  spec: { signerName: 'example.com/a', trustBundle: 'PEM' },
};

// The level rules of k8s.io/apiserver pkg/audit/request.go (LogRequestObject, LogResponseObject)
// and the event stages of pkg/endpoints/filters/audit_test.go (TestAudit).
describe('RequestAudit', () => {
  it('carries no bodies at Metadata, the request body at Request, both at RequestResponse', () => {
    const out: Record<string, [boolean, boolean]> = {};
    for (const level of ['Metadata', 'Request', 'RequestResponse'] as const) {
      const { ra, seen } = recorder(level);
      ra.logRequestObject(bundle);
      ra.logResponseObject(bundle);
      ra.setResponseCode(201);
      ra.processStage('ResponseComplete');
      out[level] = [seen[0]!.requestObject !== undefined, seen[0]!.responseObject !== undefined];
      // The object reference is completed from the body at every level.
      expect(seen[0]!.objectRef).toEqual({ resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', name: 'example.com:a:b', uid: 'uid-1', resourceVersion: '42' });
      expect(seen[0]!.responseStatus).toEqual({ metadata: {}, code: 201 });
    }
    expect(out).toEqual({ Metadata: [false, false], Request: [true, false], RequestResponse: [true, true] });
  });

  it('sends each stage as its own copy with a microsecond stage timestamp', () => {
    const { ra, seen } = recorder('Metadata');
    ra.processStage('RequestReceived');
    ra.addAnnotation('authorization.k8s.io/decision', 'allow');
    ra.setResponseCode(200);
    ra.processStage('ResponseComplete');
    expect(seen.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(seen[0]!.annotations).toBeUndefined();
    expect(seen[0]!.responseStatus).toBeUndefined();
    expect(seen[1]!.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow' });
    expect(seen[0]!.requestReceivedTimestamp).toBe('2026-01-02T03:04:05.000123Z');
    expect(seen[1]!.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(seen[1]).toMatchObject({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: '5f2c0d8e-1111-4a5b-9c3d-000000000001', verb: 'create', user: { username: 'writer' } });
  });

  it('hands a backend that writes pending times (the log in batch mode) the event without timestamp strings, any other with them', () => {
    const seen: AuditEvent[] = [];
    const backend: AuditBackend = { name: 'test', writesPendingTimes: true, processEvents: (evs) => (seen.push(...evs), true), shutdown: async () => undefined };
    const init = { auditID: 'a', requestReceivedMicros: Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 123, verb: 'get', requestURI: '/', sourceIPs: [] };
    const config = { level: 'Metadata' as const, omitStages: new Set<AuditStage>(), omitManagedFields: false };
    const lazy = new RequestAudit(config, backend, noAuditMetrics, init);
    expect(lazy.hasResponseStatus).toBe(false);
    lazy.setResponseCode(200);
    expect(lazy.hasResponseStatus).toBe(true);
    lazy.processStage('ResponseComplete');
    expect(seen[0]!.requestReceivedTimestamp).toBe('');
    expect(seen[0]!.stageTimestamp).toBe('');
    const before = JSON.stringify(seen[0]);
    makeTimestamps(seen[0]!);
    expect(seen[0]!.requestReceivedTimestamp).toBe('2026-01-02T03:04:05.000123Z');
    expect(seen[0]!.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // The keys keep their places.
    expect(Object.keys(JSON.parse(JSON.stringify(seen[0])))).toEqual(Object.keys(JSON.parse(before)));
    // Reading `event` makes them, and a stage after that keeps them current.
    const read = new RequestAudit(config, backend, noAuditMetrics, init);
    expect(read.event.requestReceivedTimestamp).toBe('2026-01-02T03:04:05.000123Z');
    read.processStage('ResponseComplete');
    expect(seen[1]!.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('changes nothing of an event once its last stage went out (a backend may still hold it)', () => {
    const { ra, seen } = recorder('RequestResponse');
    ra.setResponseCode(200);
    ra.processStage('ResponseComplete');
    const sent = JSON.stringify(seen[0]);
    ra.addAnnotation('late', 'x');
    ra.logResponseObject({ kind: 'Status', code: 504, status: 'Failure' });
    ra.setResponseStatus({ metadata: {}, code: 500 });
    ra.logRequestObject(bundle);
    ra.logImpersonatedUser({ username: 'mallory' });
    expect(JSON.stringify(seen[0])).toBe(sent);
  });

  it('leaves out the stages the policy omits', () => {
    const { ra, seen } = recorder('Metadata', ['RequestReceived']);
    ra.processStage('RequestReceived');
    ra.processStage('ResponseComplete');
    expect(seen.map((e) => e.stage)).toEqual(['ResponseComplete']);
  });

  it("adds the authorizer's decision and reason, each unless already there", () => {
    const { ra } = recorder('Metadata');
    ra.addAuthorizationAnnotations('allow', 'RBAC: allowed by ClusterRoleBinding "x"');
    expect(ra.event.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x"' });
    const other = recorder('Metadata').ra;
    other.addAnnotation('authorization.k8s.io/decision', 'forbid');
    other.addAnnotation('attest.plat.io/signer', 'example.com/a');
    other.addAuthorizationAnnotations('allow', '');
    expect(other.event.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'attest.plat.io/signer': 'example.com/a', 'authorization.k8s.io/reason': '' });
    const sealed = recorder('Metadata').ra;
    sealed.processStage('ResponseComplete');
    sealed.addAuthorizationAnnotations('allow', '');
    expect(sealed.event.annotations).toBeUndefined();
  });

  it('shares frozen authorization annotations and status between events, and copies them before another annotation or field goes in', () => {
    const a = recorder('Metadata').ra;
    const b = recorder('Metadata').ra;
    a.addAuthorizationAnnotations('allow', 'r');
    b.addAuthorizationAnnotations('allow', 'r');
    expect(b.event.annotations).toBe(a.event.annotations);
    expect(Object.isFrozen(a.event.annotations)).toBe(true);
    b.addAnnotation('attest.plat.io/signer', 'example.com/a');
    expect(b.event.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'r', 'attest.plat.io/signer': 'example.com/a' });
    expect(a.event.annotations).toEqual({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'r' });
    const c = recorder('Metadata').ra;
    c.addAuthorizationAnnotations('forbid', 'r');
    expect(c.event.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'r' });
    expect(a.event.annotations!['authorization.k8s.io/decision']).toBe('allow');

    a.setResponseCode(200);
    b.setResponseCode(200);
    c.setResponseCode(404);
    expect(b.event.responseStatus).toBe(a.event.responseStatus);
    expect(a.event.responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(c.event.responseStatus).toEqual({ metadata: {}, code: 404 });
    expect(JSON.stringify(a.event.responseStatus)).toBe('{"metadata":{},"code":200}');
  });

  it('fills a shared (frozen) object reference into a copy of its own', () => {
    const shared = Object.freeze({ resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
    const { ra } = recorder('Metadata');
    ra.event.objectRef = shared;
    ra.logRequestObject(bundle);
    expect(ra.event.objectRef).toEqual({ ...shared, name: 'example.com:a:b', uid: 'uid-1', resourceVersion: '42' });
    expect(shared).toEqual({ resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
  });

  it('keeps the first value of an annotation', () => {
    const { ra } = recorder('Metadata');
    ra.addAnnotation('k', 'first');
    ra.addAnnotation('k', 'second');
    expect(ra.event.annotations).toEqual({ k: 'first' });
  });

  it('takes the response status from a Status body, with its reason and message', () => {
    const { ra, seen } = recorder('Metadata');
    ra.logResponseObject({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', details: { kind: 'clustertrustbundles' }, code: 403 });
    ra.setResponseCode(403);
    ra.processStage('ResponseComplete');
    expect(seen[0]!.responseStatus).toEqual({ metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', details: { kind: 'clustertrustbundles' }, code: 403 });
    expect(seen[0]!.responseObject).toBeUndefined();
  });

  it('drops managedFields when the policy says omitManagedFields, from objects and list items', () => {
    const { ra, seen } = recorder('RequestResponse', [], true);
    ra.logRequestObject(bundle);
    ra.logResponseObject({ kind: 'ClusterTrustBundleList', items: [bundle] });
    ra.processStage('ResponseComplete');
    expect((seen[0]!.requestObject as typeof bundle).metadata).toEqual({ name: 'example.com:a:b', uid: 'uid-1', resourceVersion: '42' });
    expect((seen[0]!.responseObject as { items: (typeof bundle)[] }).items[0]!.metadata.managedFields).toBeUndefined();
    // The handler's object is not changed.
    expect(bundle.metadata.managedFields).toHaveLength(1);
  });

  it('never records the token of a TokenReview', () => {
    const { ra, seen } = recorder('RequestResponse');
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'eyJhbGciOi.secret.token', audiences: ['a'] } };
    ra.logRequestObject(review);
    ra.logResponseObject({ ...review, status: { authenticated: true } });
    ra.processStage('ResponseComplete');
    expect(JSON.stringify(seen)).not.toContain('eyJhbGciOi');
    expect(seen[0]!.requestObject).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { audiences: ['a'] } });
  });

  it('cuts a User-Agent longer than 1024 characters as Kubernetes does', () => {
    const seen: AuditEvent[] = [];
    const backend: AuditBackend = { name: 't', processEvents: (evs) => (seen.push(...evs), true), shutdown: async () => undefined };
    const ra = new RequestAudit({ level: 'Metadata', omitStages: new Set(), omitManagedFields: false }, backend, noAuditMetrics, {
      auditID: 'a',
      requestReceivedMicros: 0,
      verb: 'get',
      requestURI: '/',
      sourceIPs: [],
      userAgent: 'x'.repeat(2000),
    });
    expect(ra.event.userAgent).toBe(`${'x'.repeat(1024)}...TRUNCATED`);
    expect(ra.event.user).toEqual({});
  });
});
