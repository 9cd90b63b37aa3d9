import { request } from 'undici';
import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { clusterTrustBundleResource, rbacResources } from '../index.js';
import { startCluster, type TestCluster } from '../../test/cluster.js';

// The RBAC kinds through the generic REST layer: namespaced paths and keys, the namespace rules
// of create and update, lists and watches across namespaces, the rbac.authorization.k8s.io name
// of the group, tables, discovery and OpenAPI. Escalation prevention has its own tests.

const plat = '/apis/rbac.authorization.plat.io/v1';
const k8s = '/apis/rbac.authorization.k8s.io/v1';

type Obj = { apiVersion?: string; kind?: string; metadata: Record<string, unknown>; [k: string]: unknown };
type List = { kind: string; apiVersion: string; items: Obj[]; metadata: Record<string, unknown> };

const role = (name: string, namespace?: string, verbs = ['get']) => ({
  apiVersion: 'rbac.authorization.plat.io/v1',
  kind: 'Role',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules: [{ apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'], verbs }],
});

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ resources: [clusterTrustBundleResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) })] });
});
afterAll(async () => {
  await c.close();
});

describe('namespaced objects', () => {
  it('are created in the namespace of the path, stored under /<group>/<resource>/<namespace>/<name>', async () => {
    const res = await c.req<Obj>('admin', 'POST', `${plat}/namespaces/team-a/roles`, { body: role('reader') });
    expect(res.status).toBe(201);
    expect(res.json.metadata.namespace).toBe('team-a');
    const stored = await c.storage.get('/rbac.authorization.plat.io/roles/team-a/reader');
    expect(stored.metadata?.uid).toBe(res.json.metadata.uid);
    const got = await c.req<Obj>('admin', 'GET', `${plat}/namespaces/team-a/roles/reader`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ kind: 'Role', apiVersion: 'rbac.authorization.plat.io/v1', metadata: { name: 'reader', namespace: 'team-a' } });
    const elsewhere = await c.req('admin', 'GET', `${plat}/namespaces/team-b/roles/reader`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json).toMatchObject({ reason: 'NotFound', message: 'roles.rbac.authorization.plat.io "reader" not found' });
  });

  it('refuses a body whose namespace differs from the path with Kubernetes\' 400', async () => {
    const res = await c.req('admin', 'POST', `${plat}/namespaces/team-a/roles`, { body: role('other', 'team-b') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
    await c.req('admin', 'POST', `${plat}/namespaces/team-a/roles`, { body: role('moving', 'team-a') });
    const put = await c.req('admin', 'PUT', `${plat}/namespaces/team-a/roles/moving`, { body: role('moving', 'team-b') });
    expect(put.status).toBe(400);
  });

  it('clears the namespace of a cluster-scoped object, as Kubernetes does', async () => {
    const body = { ...role('cluster-wide', 'team-a'), kind: 'ClusterRole' };
    const res = await c.req<Obj>('admin', 'POST', `${plat}/clusterroles`, { body });
    expect(res.status).toBe(201);
    expect(res.json.metadata.namespace).toBeUndefined();
  });

  it('lists one namespace, or every namespace at the resource path, with metadata.namespace as a field selector', async () => {
    await c.req('admin', 'POST', `${plat}/namespaces/team-b/roles`, { body: role('reader') });
    await c.req('admin', 'POST', `${plat}/namespaces/team-b/roles`, { body: role('writer', undefined, ['create']) });
    const inB = await c.req<List>('admin', 'GET', `${plat}/namespaces/team-b/roles`);
    expect(inB.json.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['team-b/reader', 'team-b/writer']);
    const all = await c.req<List>('admin', 'GET', `${plat}/roles`);
    expect(all.json.kind).toBe('RoleList');
    expect(all.json.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(
      expect.arrayContaining(['team-a/reader', 'team-b/reader', 'team-b/writer']),
    );
    const selected = await c.req<List>('admin', 'GET', `${plat}/roles?fieldSelector=${encodeURIComponent('metadata.namespace=team-b,metadata.name=reader')}`);
    expect(selected.json.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['team-b/reader']);
    const bad = await c.req('admin', 'GET', `${plat}/roles?fieldSelector=spec.x%3Dy`);
    expect(bad.status).toBe(400);
    // A cluster-scoped resource has no metadata.namespace field.
    expect((await c.req('admin', 'GET', `${plat}/clusterroles?fieldSelector=metadata.namespace%3Dx`)).status).toBe(400);
  });

  it('serves only list and watch across namespaces; a cluster-scoped resource has no namespaced path', async () => {
    expect((await c.req('admin', 'POST', `${plat}/roles`, { body: role('x', 'team-a') })).status).toBe(405);
    expect((await c.req('admin', 'DELETE', `${plat}/roles`)).status).toBe(405);
    expect((await c.req('admin', 'GET', `${plat}/roles/reader`)).status).toBe(404);
    expect((await c.req('admin', 'GET', `${plat}/namespaces/team-a/clusterroles`)).status).toBe(404);
  });

  it('deletes a collection in one namespace only', async () => {
    await c.req('admin', 'POST', `${plat}/namespaces/team-c/roles`, { body: role('a') });
    await c.req('admin', 'POST', `${plat}/namespaces/team-d/roles`, { body: role('a') });
    const res = await c.req<List>('admin', 'DELETE', `${plat}/namespaces/team-c/roles`);
    expect(res.status).toBe(200);
    expect(res.json.items.map((i) => i.metadata.namespace)).toEqual(['team-c']);
    expect((await c.req('admin', 'GET', `${plat}/namespaces/team-d/roles/a`)).status).toBe(200);
  });

  it('creates a missing object on PUT (Kubernetes\' RBAC strategies allow it)', async () => {
    const res = await c.req('admin', 'PUT', `${plat}/namespaces/team-a/roles/put-made`, { body: role('put-made') });
    expect(res.status).toBe(201);
  });

  it('watches one namespace or all of them', async () => {
    const agent = c.agent('admin');
    const open = async (path: string) => {
      const res = await request(`${c.url}${path}`, { dispatcher: agent });
      const lines: string[] = [];
      let buffered = '';
      res.body.setEncoding('utf8');
      res.body.on('data', (chunk: string) => {
        buffered += chunk;
        let i: number;
        while ((i = buffered.indexOf('\n')) >= 0) {
          lines.push(buffered.slice(0, i));
          buffered = buffered.slice(i + 1);
        }
      });
      return { lines, close: () => res.body.destroy() };
    };
    const rv = (await c.req<List>('admin', 'GET', `${plat}/roles`)).json.metadata['resourceVersion'] as string;
    const all = await open(`${plat}/roles?watch=true&resourceVersion=${rv}`);
    const one = await open(`${plat}/namespaces/watch-a/roles?watch=true&resourceVersion=${rv}`);
    await c.req('admin', 'POST', `${plat}/namespaces/watch-a/roles`, { body: role('w') });
    await c.req('admin', 'POST', `${plat}/namespaces/watch-b/roles`, { body: role('w') });
    const seen = (w: { lines: string[] }) => w.lines.map((l) => JSON.parse(l) as { type: string; object: Obj }).map((e) => `${e.type} ${e.object.metadata.namespace}`);
    for (const end = Date.now() + 15_000; (all.lines.length < 2 || one.lines.length < 1) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    expect(seen(all)).toEqual(['ADDED watch-a', 'ADDED watch-b']);
    expect(seen(one)).toEqual(['ADDED watch-a']);
    all.close();
    one.close();
  });
});

describe('rbac.authorization.k8s.io/v1', () => {
  const binding = (apiVersion: string, group: string) => ({
    apiVersion,
    kind: 'RoleBinding',
    metadata: { name: 'readers' },
    roleRef: { apiGroup: group, kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'Group', apiGroup: group, name: 'auditors' }, { kind: 'ServiceAccount', name: 'builder' }],
  });

  it('serves the same objects, each group reading back its own name in apiVersion, roleRef and subjects', async () => {
    const res = await c.req<Obj>('admin', 'POST', `${k8s}/namespaces/team-a/rolebindings`, {
      body: binding('rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io'),
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'builder' }],
    });
    const stored = await c.storage.get('/rbac.authorization.plat.io/rolebindings/team-a/readers');
    expect(stored).toMatchObject({ apiVersion: 'rbac.authorization.plat.io/v1', roleRef: { apiGroup: 'rbac.authorization.plat.io' } });
    const viaPlat = await c.req<Obj>('admin', 'GET', `${plat}/namespaces/team-a/rolebindings/readers`);
    expect(viaPlat.json).toMatchObject({ apiVersion: 'rbac.authorization.plat.io/v1', roleRef: { apiGroup: 'rbac.authorization.plat.io' } });
    const list = await c.req<List>('admin', 'GET', `${k8s}/rolebindings`);
    expect(list.json.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(list.json.items[0]).toMatchObject({ roleRef: { apiGroup: 'rbac.authorization.k8s.io' } });
    // The managedFields entry names the apiVersion the manager used.
    expect((res.json.metadata['managedFields'] as Array<{ apiVersion: string }>)[0]!.apiVersion).toBe('rbac.authorization.k8s.io/v1');
  });

  it('refuses the other group\'s apiVersion in a body and keeps roleRef immutable across both names', async () => {
    const wrong = await c.req('admin', 'POST', `${k8s}/namespaces/team-a/rolebindings`, { body: binding('rbac.authorization.plat.io/v1', 'rbac.authorization.k8s.io') });
    expect(wrong.status).toBe(400);
    // Updating through the other name with the same role is no roleRef change.
    const cur = await c.req<Obj>('admin', 'GET', `${plat}/namespaces/team-a/rolebindings/readers`);
    const same = await c.req('admin', 'PUT', `${plat}/namespaces/team-a/rolebindings/readers`, { body: { ...cur.json, subjects: [] } });
    expect(same.status).toBe(200);
    const changed = await c.req('admin', 'PUT', `${k8s}/namespaces/team-a/rolebindings/readers`, {
      body: { ...binding('rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io'), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' } },
    });
    expect(changed.status).toBe(422);
    // Worded with the internal (stored) form of the roleRef, as Kubernetes prints its internal type.
    expect((changed.json as { message: string }).message).toBe(
      'RoleBinding.rbac.authorization.k8s.io "readers" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.plat.io", Kind:"Role", Name:"writer"}: cannot change roleRef',
    );
  });

  it('applies server-side through either name, rules being an atomic list', async () => {
    const apply = (group: string, verbs: string[]) =>
      c.req<Obj>('admin', 'PATCH', `/apis/${group}/v1/clusterroles/applied?fieldManager=tester`, {
        contentType: 'application/apply-patch+yaml',
        body: { apiVersion: `${group}/v1`, kind: 'ClusterRole', metadata: { name: 'applied' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }] },
      });
    expect((await apply('rbac.authorization.k8s.io', ['get', 'list'])).status).toBe(201);
    const second = await apply('rbac.authorization.plat.io', ['watch']);
    expect(second.status).toBe(200);
    expect(second.json['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['watch'] }]);
    const smp = await c.req<Obj>('admin', 'PATCH', `${plat}/clusterroles/applied`, {
      contentType: 'application/strategic-merge-patch+json',
      body: { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
    });
    expect(smp.status).toBe(200);
    expect(smp.json['rules']).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
  });
});

describe('tables', () => {
  it('print cluster roles as NAME and CREATED AT, bindings with ROLE and AGE, and USERS, GROUPS, SERVICEACCOUNTS for -o wide', async () => {
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const roles = await c.req<{ columnDefinitions: Array<{ name: string; type: string; priority: number }>; rows: Array<{ cells: unknown[] }> }>(
      'admin',
      'GET',
      `${plat}/clusterroles/applied`,
      { headers: accept },
    );
    expect(roles.json.columnDefinitions.map((d) => [d.name, d.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(roles.json.rows[0]!.cells[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await c.req('admin', 'POST', `${plat}/clusterrolebindings`, {
      body: {
        metadata: { name: 'wide' },
        roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'applied' },
        subjects: [
          { kind: 'User', name: 'ada' },
          { kind: 'User', name: 'bob' },
          { kind: 'Group', name: 'ops' },
          { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
        ],
      },
    });
    const bindings = await c.req<{ columnDefinitions: Array<{ name: string; priority: number }>; rows: Array<{ cells: unknown[] }> }>(
      'admin',
      'GET',
      `${plat}/clusterrolebindings/wide`,
      { headers: accept },
    );
    expect(bindings.json.columnDefinitions.map((d) => [d.name, d.priority])).toEqual([
      ['Name', 0],
      ['Role', 0],
      ['Age', 0],
      ['Users', 1],
      ['Groups', 1],
      ['ServiceAccounts', 1],
    ]);
    expect(bindings.json.rows[0]!.cells).toEqual(['wide', 'ClusterRole/applied', expect.stringMatching(/^\d+s$/), 'ada, bob', 'ops', 'build/ci']);
  });
});

describe('discovery and OpenAPI', () => {
  it('list both group names, with roles and rolebindings namespaced', async () => {
    const groups = await c.req<{ groups: Array<{ name: string }> }>('admin', 'GET', '/apis');
    expect(groups.json.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['rbac.authorization.plat.io', 'rbac.authorization.k8s.io']));
    const list = await c.req<{ resources: Array<{ name: string; namespaced: boolean; kind: string; storageVersionHash: string }> }>('admin', 'GET', plat);
    expect(list.json.resources.map((r) => [r.name, r.namespaced])).toEqual([
      ['clusterroles', false],
      ['clusterrolebindings', false],
      ['roles', true],
      ['rolebindings', true],
    ]);
    const alias = await c.req<{ resources: Array<{ storageVersionHash: string }> }>('admin', 'GET', k8s);
    expect(alias.json.resources.map((r) => r.storageVersionHash)).toEqual(list.json.resources.map((r) => r.storageVersionHash));
    const aggregated = await c.req<{ items: Array<{ metadata: { name: string }; versions: Array<{ resources: Array<{ resource: string; scope: string }> }> }> }>(
      'admin',
      'GET',
      '/apis',
      { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } },
    );
    const rbac = aggregated.json.items.find((i) => i.metadata.name === 'rbac.authorization.plat.io')!;
    expect(rbac.versions[0]!.resources.find((r) => r.resource === 'roles')!.scope).toBe('Namespaced');
  });

  it('publish namespaced paths, paths across namespaces and the kinds\' definitions', async () => {
    const doc = await c.req<{ paths: Record<string, Record<string, { operationId: string }>>; definitions: Record<string, unknown> }>('admin', 'GET', '/openapi/v2');
    const op = (path: string, method: string) => doc.json.paths[path]?.[method]?.operationId;
    expect(op(`${plat}/namespaces/{namespace}/roles`, 'get')).toBe('listRbacAuthorizationV1NamespacedRole');
    expect(op(`${plat}/namespaces/{namespace}/roles/{name}`, 'put')).toBe('replaceRbacAuthorizationV1NamespacedRole');
    expect(op(`${plat}/roles`, 'get')).toBe('listRbacAuthorizationV1RoleForAllNamespaces');
    expect(op(`${plat}/watch/roles`, 'get')).toBe('watchRbacAuthorizationV1RoleListForAllNamespaces');
    expect(op(`${plat}/watch/namespaces/{namespace}/roles/{name}`, 'get')).toBe('watchRbacAuthorizationV1NamespacedRole');
    expect(op(`${plat}/clusterroles`, 'delete')).toBe('deleteRbacAuthorizationV1CollectionClusterRole');
    expect(op(`${k8s}/clusterrolebindings/{name}`, 'patch')).toBe('patchRbacAuthorizationV1ClusterRoleBinding');
    expect(doc.json.definitions['io.plat.api.rbac.v1.ClusterRole']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: 'rbac.authorization.plat.io', kind: 'ClusterRole', version: 'v1' }],
    });
    expect(doc.json.definitions['io.k8s.api.rbac.v1.RoleBinding']).toBeDefined();
    const v3 = await c.req<{ paths: Record<string, unknown> }>('admin', 'GET', '/openapi/v3');
    expect(Object.keys(v3.json.paths)).toEqual(expect.arrayContaining(['apis/rbac.authorization.plat.io/v1', 'apis/rbac.authorization.k8s.io/v1']));
  });
});
