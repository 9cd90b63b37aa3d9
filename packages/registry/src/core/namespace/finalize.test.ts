import { request } from 'undici';
import { RbacAuthorizer, RbacPolicyStore, RbacRuleResolver, createAuthorizerChain, createBuiltinAuthorizer } from '@plat/auth';
import { namespaceResource, rbacResources } from '../../index.js';
import { startCluster, type TestCluster } from '../../../test/cluster.js';

// The `finalize` subresource of a Namespace (Kubernetes' FinalizeREST with namespaceFinalizeStrategy,
// pkg/registry/core/namespace/storage/storage.go and strategy.go): PUT only, spec and metadata
// from the body, status from the stored object, the finalizer names validated as
// ValidateNamespaceFinalizeUpdate does, authorized as `update` of `namespaces/finalize`.

type Obj = { metadata: Record<string, unknown> & { managedFields?: Array<Record<string, unknown>> }; spec?: { finalizers?: string[] }; status?: Record<string, unknown> };
type Status = { code: number; reason: string; message: string; details?: { causes?: Array<Record<string, unknown>> } };

const ns = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra });
const finalizePath = (name: string) => `/api/v1/namespaces/${name}/finalize`;

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ resources: [namespaceResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) })] });
});
afterAll(async () => {
  await c.close();
});

async function fresh(name: string, finalizers: string[] = []): Promise<Obj> {
  const res = await c.req<Obj>('admin', 'POST', '/api/v1/namespaces', { body: ns(name, finalizers.length ? { spec: { finalizers } } : {}) });
  expect(res.status).toBe(201);
  return res.json;
}

describe('PUT namespaces/<name>/finalize', () => {
  it('replaces spec.finalizers and records the change under the finalize subresource', async () => {
    const cur = await fresh('fin-a', ['example.com/keep']);
    expect(cur.spec?.finalizers).toEqual(['example.com/keep', 'kubernetes']);
    const res = await c.req<Obj>('admin', 'PUT', finalizePath('fin-a'), { body: { ...cur, spec: { finalizers: ['example.com/keep'] } } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', spec: { finalizers: ['example.com/keep'] }, status: { phase: 'Active' } });
    const got = await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/fin-a');
    expect(got.json.spec?.finalizers).toEqual(['example.com/keep']);
    expect(got.json.metadata.managedFields?.some((m) => m['operation'] === 'Update' && m['subresource'] === 'finalize')).toBe(true);
  });

  it('takes status from the stored object (namespaceFinalizeStrategy.PrepareForUpdate), never from the body', async () => {
    const cur = await fresh('fin-b');
    const res = await c.req<Obj>('admin', 'PUT', finalizePath('fin-b'), {
      body: { ...cur, spec: { finalizers: [] }, status: { phase: 'Terminating' } },
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toEqual({ phase: 'Active' });
    expect(res.json.spec?.finalizers ?? []).toEqual([]);
    // The namespace is not being deleted: it stays without finalizers.
    expect((await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/fin-b')).json.status).toEqual({ phase: 'Active' });
  });

  it('leaves spec.finalizers alone on a regular update (namespaceStrategy.PrepareForUpdate)', async () => {
    const cur = await fresh('fin-c');
    const res = await c.req<Obj>('admin', 'PUT', '/api/v1/namespaces/fin-c', { body: { ...cur, spec: { finalizers: [] } } });
    expect(res.status).toBe(200);
    expect(res.json.spec?.finalizers).toEqual(['kubernetes']);
  });

  it('deletes a Terminating namespace with its last finalizer (ShouldDeleteNamespaceDuringUpdate)', async () => {
    await fresh('fin-d');
    const del = await c.req<Obj>('admin', 'DELETE', '/api/v1/namespaces/fin-d');
    expect(del.status).toBe(202);
    const res = await c.req<Obj>('admin', 'PUT', finalizePath('fin-d'), { body: { ...del.json, spec: { finalizers: [] } } });
    expect(res.status).toBe(200);
    expect(res.json.status).toEqual({ phase: 'Terminating' });
    expect((await c.req('admin', 'GET', '/api/v1/namespaces/fin-d')).status).toBe(404);
  });

  it('refuses a finalizer name that is neither standard nor qualified with 422 (ValidateNamespaceFinalizeUpdate)', async () => {
    const cur = await fresh('fin-e');
    const res = await c.req<Status>('admin', 'PUT', finalizePath('fin-e'), { body: { ...cur, spec: { finalizers: ['kubernetes', 'foo'] } } });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      reason: 'Invalid',
      message: 'Namespace "fin-e" is invalid: spec.finalizers[1]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.finalizers[1]' }] },
    });
    expect((await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/fin-e')).json.spec?.finalizers).toEqual(['kubernetes']);
  });

  it('is a conditional update when the body carries a resourceVersion (409 on a stale one)', async () => {
    const cur = await fresh('fin-f');
    await c.req('admin', 'PUT', '/api/v1/namespaces/fin-f', { body: { ...cur, metadata: { ...cur.metadata, labels: { moved: 'on' } } } });
    const res = await c.req<Status>('admin', 'PUT', finalizePath('fin-f'), { body: { ...cur, spec: { finalizers: [] } } });
    expect(res.status).toBe(409);
    expect(res.json.reason).toBe('Conflict');
  });

  it('reads a body without Content-Type as JSON, as kubectl replace --raw sends it (NegotiateInputSerializerForMediaType)', async () => {
    const bare = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
      const res = await request(`${c.url}${path}`, { method, body: JSON.stringify(body), dispatcher: c.agent('admin') });
      return { status: res.statusCode, json: (await res.body.json()) as Obj };
    };
    const created = await bare('POST', '/api/v1/namespaces', ns('fin-h'));
    expect(created.status).toBe(201);
    const res = await bare('PUT', finalizePath('fin-h'), { ...created.json, spec: { finalizers: [] } });
    expect(res.status).toBe(200);
    expect(res.json.spec).toEqual({});
  });

  it('serves PUT only, never creates, and serves no other subresource', async () => {
    await fresh('fin-g');
    const get = await c.req<Status>('admin', 'GET', finalizePath('fin-g'));
    expect(get.status).toBe(405);
    expect(get.json.reason).toBe('MethodNotAllowed');
    expect((await c.req('admin', 'PATCH', finalizePath('fin-g'), { contentType: 'application/merge-patch+json', body: { spec: { finalizers: [] } } })).status).toBe(405);
    const missing = await c.req<Status>('admin', 'PUT', finalizePath('nowhere'), { body: ns('nowhere', { spec: { finalizers: [] } }) });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('namespaces "nowhere" not found');
    expect((await c.req('admin', 'PUT', '/api/v1/namespaces/fin-g/status', { body: ns('fin-g') })).status).toBe(404);
    expect((await c.req('admin', 'PUT', `${finalizePath('fin-g')}/more`, { body: ns('fin-g') })).status).toBe(404);
    // The URL names the object: a body naming another is refused as for the resource itself.
    expect((await c.req('admin', 'PUT', finalizePath('fin-g'), { body: ns('other') })).status).toBe(400);
    // Request metrics carry the subresource served, never one nobody serves.
    expect((await c.req('admin', 'GET', '/api/v1/namespaces/fin-g/bogus')).status).toBe(404);
    const metrics = (await c.req('admin', 'GET', '/metrics')).text;
    expect(metrics).toMatch(/apiserver_request_total\{verb="PUT",[^}]*resource="namespaces",subresource="finalize",/);
    expect(metrics).not.toContain('subresource="bogus"');
  });
});

describe('namespaces/finalize in discovery and OpenAPI', () => {
  it('is listed after namespaces with the verb update, as kube-apiserver lists it under /api/v1', async () => {
    const list = await c.req<{ resources: Array<Record<string, unknown>> }>('admin', 'GET', '/api/v1');
    expect(list.json.resources).toEqual([
      expect.objectContaining({ name: 'namespaces' }),
      { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
    ]);
    const aggregated = await c.req<{ items: Array<{ versions: Array<{ resources: Array<Record<string, unknown>> }> }> }>('admin', 'GET', '/api', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    expect(aggregated.json.items[0]!.versions[0]!.resources[0]).toMatchObject({
      resource: 'namespaces',
      subresources: [{ subresource: 'finalize', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] }],
    });
  });

  it('has the path and operation of kube-apiserver\'s OpenAPI v2 (replaceCoreV1NamespaceFinalize)', async () => {
    type Param = { name?: string; in?: string; $ref?: string };
    const doc = await c.req<{ paths: Record<string, { parameters: Param[]; put?: Record<string, unknown> & { parameters: Param[] } }> }>('admin', 'GET', '/openapi/v2');
    const path = doc.json.paths['/api/v1/namespaces/{name}/finalize']!;
    expect(Object.keys(path).sort()).toEqual(['parameters', 'put']);
    expect(path.parameters.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'name', 'pretty']);
    expect(path.put).toMatchObject({
      operationId: 'replaceCoreV1NamespaceFinalize',
      description: 'replace finalize of the specified Namespace',
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'Namespace' },
      tags: ['core_v1'],
    });
    expect(path.put!.parameters).toEqual([{ in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.plat.api.core.v1.Namespace' } }]);
    expect(Object.keys(path.put!['responses'] as object)).toEqual(['200', '201', '401']);
  });
});

describe('authorization of namespaces/finalize', () => {
  const k8s = 'rbac.authorization.k8s.io';
  let rbac: TestCluster;
  beforeAll(async () => {
    const store = new RbacPolicyStore({
      clusterRoles: [
        { metadata: { name: 'ns-updater' }, rules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['namespaces'] }] },
        { metadata: { name: 'ns-finalizer' }, rules: [{ verbs: ['update'], apiGroups: [''], resources: ['namespaces/finalize'] }] },
      ],
      clusterRoleBindings: [
        { metadata: { name: 'reader' }, roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: 'ns-updater' }, subjects: [{ kind: 'User', apiGroup: k8s, name: 'reader' }] },
        { metadata: { name: 'writer' }, roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: 'ns-finalizer' }, subjects: [{ kind: 'User', apiGroup: k8s, name: 'writer' }] },
      ],
    });
    rbac = await startCluster({
      resources: [namespaceResource()],
      reviews: false,
      authorizer: createAuthorizerChain([createBuiltinAuthorizer(), new RbacAuthorizer(store)]),
    });
    expect((await rbac.req('admin', 'POST', '/api/v1/namespaces', { body: ns('team') })).status).toBe(201);
  });
  afterAll(async () => {
    await rbac.close();
  });

  it('refuses a user who may update namespaces but not namespaces/finalize, and the other way round', async () => {
    const cur = (await rbac.req<Obj>('admin', 'GET', '/api/v1/namespaces/team')).json;
    const viaFinalize = await rbac.req<Status>('reader', 'PUT', finalizePath('team'), { body: { ...cur, spec: { finalizers: [] } } });
    expect(viaFinalize.status).toBe(403);
    expect(viaFinalize.json.message).toContain('User "reader" cannot update resource "namespaces/finalize" in API group ""');
    expect((await rbac.req('reader', 'PUT', '/api/v1/namespaces/team', { body: cur })).status).toBe(200);

    const viaUpdate = await rbac.req<Status>('writer', 'PUT', '/api/v1/namespaces/team', { body: cur });
    expect(viaUpdate.status).toBe(403);
    expect(viaUpdate.json.message).toContain('User "writer" cannot update resource "namespaces" in API group ""');
    const finalized = await rbac.req<Obj>('writer', 'PUT', finalizePath('team'), { body: { ...cur, metadata: { name: 'team' }, spec: { finalizers: [] } } });
    expect(finalized.status).toBe(200);
    expect(finalized.json.spec?.finalizers ?? []).toEqual([]);
  });
});
