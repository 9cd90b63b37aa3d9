import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { namespaceResource, rbacResources } from '../../index.js';
import { startCluster, type TestCluster } from '../../../test/cluster.js';

// Namespaces (core v1) and Kubernetes' NamespaceLifecycle admission: content only in a namespace
// that exists and is not terminating; system namespaces stay.

type Obj = { metadata: Record<string, unknown>; spec?: Record<string, unknown>; status?: Record<string, unknown>; [k: string]: unknown };

const roles = (ns: string) => `/apis/rbac.authorization.plat.io/v1/namespaces/${ns}/roles`;
const role = (name: string) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
const ns = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra });

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ resources: [namespaceResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) })] });
  await c.req('admin', 'POST', '/api/v1/namespaces', { body: ns('default') });
});
afterAll(async () => {
  await c.close();
});

describe('Namespace', () => {
  it('is created Active with the kubernetes finalizer and its name as the plat.io/metadata.name label', async () => {
    const res = await c.req<Obj>('admin', 'POST', '/api/v1/namespaces', { body: ns('team-a', { spec: { finalizers: ['example.com/keep'] } }) });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'team-a', labels: { 'plat.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['example.com/keep', 'kubernetes'] },
      status: { phase: 'Active' },
    });
    expect((await c.storage.get('//namespaces/team-a')).metadata?.uid).toBe(res.json.metadata['uid']);
    const got = await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/team-a');
    expect(got.status).toBe(200);
  });

  it('keeps spec and status through updates, and the name label', async () => {
    const cur = await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/team-a');
    const res = await c.req<Obj>('admin', 'PUT', '/api/v1/namespaces/team-a', {
      body: { ...cur.json, metadata: { ...cur.json.metadata, labels: { team: 'a' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      metadata: { labels: { team: 'a', 'plat.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['example.com/keep', 'kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  it('refuses names that are not DNS labels (422)', async () => {
    const res = await c.req('admin', 'POST', '/api/v1/namespaces', { body: ns('Team.A') });
    expect(res.status).toBe(422);
  });

  it('prints NAME, STATUS, AGE and selects by status.phase', async () => {
    const table = await c.req<{ columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> }>('admin', 'GET', '/api/v1/namespaces/team-a', {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(table.json.columnDefinitions.map((d) => d.name)).toEqual(['Name', 'Status', 'Age']);
    expect(table.json.rows[0]!.cells.slice(0, 2)).toEqual(['team-a', 'Active']);
    const active = await c.req<{ items: Obj[] }>('admin', 'GET', '/api/v1/namespaces?fieldSelector=status.phase%3DActive');
    expect(active.json.items.map((i) => i.metadata['name'])).toEqual(expect.arrayContaining(['default', 'team-a']));
  });
});

describe('NamespaceLifecycle', () => {
  it('refuses content in a namespace that does not exist with 404', async () => {
    const res = await c.req('admin', 'POST', roles('nowhere'), { body: role('r') });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ reason: 'NotFound', message: 'namespaces "nowhere" not found', details: { name: 'nowhere', kind: 'namespaces' } });
    // Server-side apply creates through the same check.
    const applied = await c.req('admin', 'PATCH', `${roles('nowhere')}/r?fieldManager=t`, {
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'Role', ...role('r') },
    });
    expect(applied.status).toBe(404);
  });

  it('lets content be created in a namespace created just before', async () => {
    expect((await c.req('admin', 'POST', '/api/v1/namespaces', { body: ns('fresh') })).status).toBe(201);
    expect((await c.req('admin', 'POST', roles('fresh'), { body: role('r') })).status).toBe(201);
  });

  it('marks a deleted namespace Terminating while its finalizers hold it, and refuses new content there with 403', async () => {
    await c.req('admin', 'POST', '/api/v1/namespaces', { body: ns('leaving') });
    const del = await c.req<Obj>('admin', 'DELETE', '/api/v1/namespaces/leaving');
    expect(del.status).toBe(202);
    expect(del.json).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' }, metadata: { deletionTimestamp: expect.any(String) } });
    const still = await c.req<Obj>('admin', 'GET', '/api/v1/namespaces/leaving');
    expect(still.json.status).toEqual({ phase: 'Terminating' });
    const res = await c.req('admin', 'POST', roles('leaving'), { body: role('late') });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      reason: 'Forbidden',
      message: 'roles.rbac.authorization.plat.io "late" is forbidden: unable to create new content in namespace leaving because it is being terminated',
      details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace leaving is being terminated', field: 'metadata.namespace' }] },
    });
  });

  it('refuses to delete a system namespace', async () => {
    const res = await c.req('admin', 'DELETE', '/api/v1/namespaces/default');
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ message: 'namespaces "default" is forbidden: this namespace may not be deleted' });
  });
});

describe('core v1 discovery and OpenAPI', () => {
  it('list namespaces under /api/v1 only', async () => {
    const list = await c.req<{ groupVersion: string; resources: Array<Record<string, unknown>>; apiVersion?: string }>('admin', 'GET', '/api/v1');
    expect(list.json.groupVersion).toBe('v1');
    expect(list.json.apiVersion).toBeUndefined();
    expect(list.json.resources).toEqual([
      expect.objectContaining({ name: 'namespaces', namespaced: false, kind: 'Namespace', shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }),
      expect.objectContaining({ name: 'namespaces/finalize', verbs: ['update'] }),
    ]);
    const groups = await c.req<{ groups: Array<{ name: string }> }>('admin', 'GET', '/apis');
    expect(groups.json.groups.map((g) => g.name)).not.toContain('');
    const legacy = await c.req<{ items: Array<{ versions: Array<{ resources: Array<{ resource: string; scope: string }> }> }> }>('admin', 'GET', '/api', {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
    });
    expect(legacy.json.items[0]!.versions[0]!.resources.map((r) => [r.resource, r.scope])).toEqual([['namespaces', 'Cluster']]);
  });

  it('publish the core operations and an OpenAPI v3 document at api/v1', async () => {
    const doc = await c.req<{ paths: Record<string, Record<string, { operationId: string }>> }>('admin', 'GET', '/openapi/v2');
    expect(doc.json.paths['/api/v1/namespaces']?.['get']?.operationId).toBe('listCoreV1Namespace');
    expect(doc.json.paths['/api/v1/namespaces']?.['delete']).toBeUndefined();
    expect(doc.json.paths['/api/v1/namespaces/{name}']?.['put']?.operationId).toBe('replaceCoreV1Namespace');
    expect(doc.json.paths['/api/v1/']?.['get']?.operationId).toBe('getCoreV1APIResources');
    const v3 = await c.req<{ paths: Record<string, { serverRelativeURL: string }> }>('admin', 'GET', '/openapi/v3');
    const url = v3.json.paths['api/v1']!.serverRelativeURL;
    const core = await c.req<{ paths: Record<string, unknown> }>('admin', 'GET', url);
    expect(Object.keys(core.json.paths)).toContain('/api/v1/namespaces');
  });
});
