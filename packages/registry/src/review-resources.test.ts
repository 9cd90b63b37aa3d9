import type { Attributes, Authorizer } from '@plat/auth';
import { startCluster, testAuthorizer, type TestCluster } from '../test/cluster.js';

// The test chain plus Kubernetes' system:basic-user rule (self reviews for everybody) and an
// explicit Deny, so that all three decisions show in review answers.
const authorizer: Authorizer = {
  // The rules a rule-listing authorizer (RBAC) would list: readers read bundles in every namespace.
  rulesFor: (user, namespace) => ({
    resourceRules: [
      { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectrulesreviews'] },
      ...(user.username === 'reader' ? [{ verbs: ['get', 'list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }] : []),
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: [`/ns/${namespace}`] }],
    incomplete: false,
  }),
  async authorize(a: Attributes) {
    if (a.resourceRequest && a.verb === 'create' && ['selfsubjectreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews'].includes(a.resource)) {
      return { decision: 'Allow', reason: '' };
    }
    if (a.resourceRequest && a.verb === 'delete' && a.resource === 'clustertrustbundles' && a.user.username === 'reader') {
      return { decision: 'Deny', reason: 'readers never delete' };
    }
    return testAuthorizer.authorize(a);
  },
};

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ authorizer });
});
afterAll(async () => {
  await c.close();
});

const ssr = '/apis/authentication.plat.io/v1/selfsubjectreviews';
const ssar = '/apis/authorization.plat.io/v1/selfsubjectaccessreviews';
const sar = '/apis/authorization.plat.io/v1/subjectaccessreviews';

describe('review APIs', () => {
  it('answers the caller as a SelfSubjectReview (also under the kubectl group name)', async () => {
    const res = await c.req('writer', 'POST', ssr, { body: { apiVersion: 'authentication.plat.io/v1', kind: 'SelfSubjectReview' } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.plat.io/v1',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'writer', groups: ['writers', 'system:authenticated'] } },
    });
    const alias = await c.req('token', 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(alias.status).toBe(201);
    expect(alias.json).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', status: { userInfo: { username: 'tokenuser' } } });
  });

  it('reports the impersonated user', async () => {
    const res = await c.req('admin', 'POST', ssr, { body: {}, headers: { 'Impersonate-User': 'someone', 'Impersonate-Group': 'team' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: { userInfo: { username: 'someone', groups: ['team', 'system:authenticated'] } } });
  });

  it('answers the chain decision for the caller (allowed, denied, no opinion)', async () => {
    const ask = (user: 'reader' | 'writer', resourceAttributes: Record<string, unknown>) =>
      c.req<{ status: Record<string, unknown>; spec: unknown }>(user, 'POST', ssar, {
        body: { apiVersion: 'authorization.plat.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
      });
    const allowed = await ask('writer', { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' });
    expect(allowed.status).toBe(201);
    expect(allowed.json.status).toEqual({ allowed: true });
    expect(allowed.json.spec).toEqual({ resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } });
    const denied = await ask('reader', { verb: 'delete', group: 'certificates.plat.io', resource: 'clustertrustbundles', name: 'x' });
    expect(denied.json.status).toEqual({ allowed: false, denied: true, reason: 'readers never delete' });
    const none = await ask('reader', { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' });
    expect(none.json.status).toEqual({ allowed: false });
    const nonResource = await c.req<{ status: unknown }>('reader', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { verb: 'get', path: '/version' } } },
    });
    expect(nonResource.status).toBe(201);
    expect(nonResource.json.status).toEqual({ allowed: true });
  });

  it('validates review specs as Kubernetes does', async () => {
    const neither = await c.req<{ reason: string; message: string }>('reader', 'POST', ssar, { body: { spec: {} } });
    expect(neither.status).toBe(422);
    expect(neither.json.message).toBe(
      'SelfSubjectAccessReview.authorization.plat.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const withMeta = await c.req<{ message: string }>('reader', 'POST', ssr, { body: { metadata: { name: 'x' } } });
    expect(withMeta.status).toBe(422);
    expect(withMeta.json.message).toContain('metadata: Invalid value');
    const wrongKind = await c.req<{ message: string }>('reader', 'POST', ssr, { body: { kind: 'Pod' } });
    expect(wrongKind.status).toBe(400);
    const get = await c.req('admin', 'GET', ssr);
    expect(get.status).toBe(405);
  });

  it('answers SubjectAccessReviews about another subject, for privileged callers only', async () => {
    const body = {
      apiVersion: 'authorization.plat.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'w', groups: ['writers'], resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
    };
    const forbidden = await c.req<{ message: string }>('writer', 'POST', sar, { body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.message).toContain('cannot create resource "subjectaccessreviews" in API group "authorization.plat.io"');
    const res = await c.req<{ status: unknown }>('admin', 'POST', sar, { body });
    expect(res.status).toBe(201);
    expect(res.json.status).toEqual({ allowed: true });
    const noSubject = await c.req<{ message: string }>('admin', 'POST', sar, { body: { spec: { nonResourceAttributes: { path: '/x', verb: 'get' } } } });
    expect(noSubject.status).toBe(422);
    expect(noSubject.json.message).toContain('spec.user: Invalid value: "": at least one of user or group must be specified');
  });

  it('reads protobuf review bodies as kubectl sends them, and answers JSON', async () => {
    // Protobuf wire encoding of the few fields needed (k8s.io/api generated.proto field numbers).
    const varint = (n: number) => {
      const out: number[] = [];
      while (n >= 0x80) {
        out.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      out.push(n);
      return Buffer.from(out);
    };
    const field = (n: number, value: Buffer | string) => {
      const bytes = typeof value === 'string' ? Buffer.from(value) : value;
      return Buffer.concat([varint(n * 8 + 2), varint(bytes.length), bytes]);
    };
    const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
      Buffer.concat([Buffer.from('k8s\0', 'binary'), field(1, Buffer.concat([field(1, apiVersion), field(2, kind)])), field(2, raw), field(3, ''), field(4, '')]);
    const resourceAttributes = Buffer.concat([field(2, 'create'), field(3, 'certificates.plat.io'), field(5, 'clustertrustbundles')]);
    const ssarBody = envelope(
      'authorization.k8s.io/v1',
      'SelfSubjectAccessReview',
      Buffer.concat([field(1, field(1, '')), field(2, field(1, resourceAttributes))]),
    );
    const headers = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' };
    const res = await c.req<{ status: unknown; spec: unknown; apiVersion: string }>('writer', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      raw: ssarBody,
      headers,
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      spec: { resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
      status: { allowed: true },
    });
    const sarBody = envelope(
      'authorization.plat.io/v1',
      'SubjectAccessReview',
      Buffer.concat([field(2, Buffer.concat([field(1, resourceAttributes), field(3, 'someone'), field(4, 'writers'), field(4, 'team')]))]),
    );
    const sarRes = await c.req<{ spec: unknown; status: unknown }>('admin', 'POST', sar, { raw: sarBody, headers });
    expect(sarRes.json.spec).toMatchObject({ user: 'someone', groups: ['writers', 'team'] });
    expect(sarRes.json.status).toEqual({ allowed: true });
    const whoami = await c.req<{ status: unknown }>('reader', 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      raw: envelope('authentication.k8s.io/v1', 'SelfSubjectReview', field(1, field(1, ''))),
      headers,
    });
    expect(whoami.status).toBe(201);
    expect(whoami.json.status).toEqual({ userInfo: { username: 'reader', groups: ['system:authenticated'] } });
    const garbage = await c.req<{ message: string }>('reader', 'POST', ssr, { raw: Buffer.from('not protobuf'), headers });
    expect(garbage.status).toBe(400);
    expect(garbage.json.message).toContain('does not appear to be a protobuf message');
  });

  it('lists the caller\'s rules in a namespace as a SelfSubjectRulesReview (kubectl auth can-i --list), JSON or protobuf', async () => {
    const res = await c.req<{ apiVersion: string; spec: unknown; status: unknown }>('reader', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team-a' } },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { namespace: 'team-a' },
      status: {
        resourceRules: [
          { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectrulesreviews'] },
          { verbs: ['get', 'list'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] },
        ],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/ns/team-a'] }],
        incomplete: false,
      },
    });
    const noNamespace = await c.req<{ message: string }>('reader', 'POST', '/apis/authorization.plat.io/v1/selfsubjectrulesreviews', { body: { spec: {} } });
    expect(noNamespace.status).toBe(400);
    expect(noNamespace.json.message).toBe('no namespace on request');
    // The protobuf body kubectl sends: TypeMeta, then raw { metadata = 1, spec = 2 { namespace = 1 } }.
    const field = (n: number, value: Buffer | string) => {
      const bytes = typeof value === 'string' ? Buffer.from(value) : value;
      return Buffer.concat([Buffer.from([n * 8 + 2, bytes.length]), bytes]);
    };
    const typeMeta = field(1, Buffer.concat([field(1, 'authorization.k8s.io/v1'), field(2, 'SelfSubjectRulesReview')]));
    const raw = field(2, Buffer.concat([field(1, ''), field(2, field(1, 'team-b'))]));
    const proto = await c.req<{ spec: unknown }>('writer', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      raw: Buffer.concat([Buffer.from('k8s\0', 'binary'), typeMeta, raw]),
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' },
    });
    expect(proto.status).toBe(201);
    expect(proto.json.spec).toEqual({ namespace: 'team-b' });
  });

  it('lists the review resources in discovery under the plat and the Kubernetes group names, create only', async () => {
    const authorization = [
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ];
    const authentication = [{ name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] }];
    for (const [group, resources] of [
      ['authorization.plat.io', authorization],
      ['authorization.k8s.io', authorization],
      ['authentication.plat.io', authentication],
      ['authentication.k8s.io', authentication],
    ] as const) {
      const list = await c.req<{ groupVersion: string; resources: unknown[] }>('reader', 'GET', `/apis/${group}/v1`);
      expect(list.status).toBe(200);
      expect(list.json.groupVersion).toBe(`${group}/v1`);
      expect(list.json.resources).toEqual(resources);
      const doc = await c.req('reader', 'GET', `/apis/${group}`);
      expect(doc.json).toEqual({
        kind: 'APIGroup',
        apiVersion: 'v1',
        name: group,
        versions: [{ groupVersion: `${group}/v1`, version: 'v1' }],
        preferredVersion: { groupVersion: `${group}/v1`, version: 'v1' },
      });
    }
    // The plat groups first: kubectl resolves a bare resource name to the first group serving it.
    const groups = await c.req<{ groups: { name: string }[] }>('reader', 'GET', '/apis');
    // (Stored resources come before create-only ones: ClusterTrustBundle's Kubernetes group too.)
    expect(groups.json.groups.map((g) => g.name)).toEqual([
      'certificates.plat.io',
      'certificates.k8s.io',
      'authentication.plat.io',
      'authorization.plat.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
    ]);
    const aggregated = await c.req<{ items: Array<{ metadata: { name: string }; versions: Array<{ resources: Array<Record<string, unknown>> }> }> }>(
      'reader',
      'GET',
      '/apis',
      { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } },
    );
    const aggregatedSsar = aggregated.json.items.find((i) => i.metadata.name === 'authorization.k8s.io')!.versions[0]!.resources[0];
    expect(aggregatedSsar).toEqual({
      resource: 'selfsubjectaccessreviews',
      responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' },
      scope: 'Cluster',
      singularResource: 'selfsubjectaccessreview',
      verbs: ['create'],
    });
  });

  it('describes the review resources in OpenAPI v2 and v3 under both group names, POST only', async () => {
    const v3 = await c.req<{ paths: Record<string, unknown> }>('reader', 'GET', '/openapi/v3');
    expect(Object.keys(v3.json.paths)).toEqual([
      'apis/certificates.plat.io/v1',
      'apis/certificates.plat.io/v1beta1',
      'apis/certificates.plat.io/v1alpha1',
      'apis/certificates.k8s.io/v1',
      'apis/certificates.k8s.io/v1beta1',
      'apis/authentication.plat.io/v1',
      'apis/authorization.plat.io/v1',
      'apis/authentication.k8s.io/v1',
      'apis/authorization.k8s.io/v1',
    ]);
    type Doc = { paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string }>; 'x-kubernetes-group-version-kind'?: unknown }>>; components: { schemas: Record<string, unknown> } };
    const doc = (await c.req<Doc>('reader', 'GET', '/openapi/v3/apis/authorization.k8s.io/v1')).json;
    expect(Object.keys(doc.paths)).toEqual([
      '/apis/authorization.k8s.io/v1/',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    ]);
    const create = doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']!;
    expect(Object.keys(create)).toEqual(['post', 'parameters']);
    expect(create.post!.operationId).toBe('createAuthorizationV1SelfSubjectAccessReview');
    expect(create.post!['x-kubernetes-group-version-kind']).toEqual({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' });
    // kubectl's validation asks for fieldValidation support here before it sends a manifest.
    expect(create.post!.parameters!.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(doc.components.schemas['io.k8s.api.authorization.v1.SelfSubjectAccessReview']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview', version: 'v1' }],
    });
    const v2 = (await c.req<{ paths: Record<string, unknown>; definitions: Record<string, unknown> }>('reader', 'GET', '/openapi/v2')).json;
    expect(Object.keys(v2.paths)).toEqual(expect.arrayContaining(['/apis/authentication.plat.io/v1/selfsubjectreviews', '/apis/authentication.k8s.io/v1/selfsubjectreviews']));
    expect(v2.definitions['io.plat.api.authentication.v1.SelfSubjectReview']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: 'authentication.plat.io', kind: 'SelfSubjectReview', version: 'v1' }],
    });
  });
});
