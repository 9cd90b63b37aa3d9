import type { ApiObject, ClusterRole } from '@plat/api-model';
import { RbacAuthorizer, RbacPolicyStore, RbacRuleResolver, aggregateToEditLabel, aggregateToViewLabel, type Attributes } from '@plat/auth';
import type { ApiServer } from '@plat/server';
import { MemoryStorage } from '@plat/storage';
import { loopbackServer } from '../test/loopback-server.js';
import { reconcileBootstrapPolicy } from './bootstrap-policy.js';
import { ClusterRoleAggregationController, aggregatedRules } from './clusterrole-aggregation-controller.js';
import { startControllers } from './start-controllers.js';
import { NamespaceController } from './namespace-controller.js';

const roleKey = (name: string) => `/rbac.authorization.plat.io/clusterroles/${name}`;
const clusterRole = (name: string, labels: Record<string, string>, rules: ClusterRole['rules']): ClusterRole => ({
  apiVersion: 'rbac.authorization.plat.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
});

/** Polls until `check` passes (the controllers act on watch events, a moment after the write). */
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

let storage: MemoryStorage;
let server: ApiServer;
beforeEach(() => {
  storage = new MemoryStorage();
  server = loopbackServer(storage);
});
afterEach(async () => {
  await server.close();
  await storage.close();
});

describe('aggregatedRules (Kubernetes\' clusterrole aggregation)', () => {
  it('gathers the selected roles\' rules selector by selector, roles in name order, each rule once, never its own', () => {
    const target: ClusterRole = {
      metadata: { name: 'target', labels: { a: 'true' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'true' } }, { matchLabels: { a: 'true' } }] },
      rules: [{ verbs: ['stale'] }],
    };
    const roles = [
      target,
      clusterRole('z-a', { a: 'true' }, [{ verbs: ['get'], apiGroups: [''], resources: ['z'] }]),
      clusterRole('m-b', { b: 'true' }, [{ verbs: ['get'], apiGroups: [''], resources: ['m'] }]),
      clusterRole('a-ab', { a: 'true', b: 'true' }, [{ verbs: ['get'], apiGroups: [''], resources: ['a'] }, { verbs: ['get'], apiGroups: [''], resources: ['m'] }]),
    ];
    expect(aggregatedRules(target, roles).map((r) => r.resources![0])).toEqual(['a', 'm', 'z']);
  });
});

describe('ClusterRoleAggregationController', () => {
  it('fills admin, edit and view from the labelled roles and follows changes, owning the rules', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    const controller = new ClusterRoleAggregationController(storage, server.loopback);
    await controller.start();
    const rulesOf = async (name: string) => ((await storage.get(roleKey(name))) as ClusterRole).rules ?? [];
    expect(await rulesOf('admin')).toEqual(
      expect.arrayContaining([
        { verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'], apiGroups: ['rbac.authorization.plat.io'], resources: ['roles', 'rolebindings'] },
        { verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] },
      ]),
    );
    await eventually(async () => expect(await rulesOf('view')).toEqual(expect.arrayContaining([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] }])));

    // A new role labelled for view reaches view, then edit and admin (which aggregate view and edit).
    await storage.create(roleKey('widgets-view'), clusterRole('widgets-view', { [aggregateToViewLabel]: 'true' }, [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }]));
    const widgets = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
    await eventually(async () => {
      for (const name of ['view', 'edit', 'admin']) expect(await rulesOf(name)).toContainEqual(widgets);
    });
    const view = (await storage.get(roleKey('view'))) as ClusterRole;
    expect(view.metadata?.managedFields?.some((m) => m.manager === 'clusterrole-aggregation-controller' && m.operation === 'Apply')).toBe(true);

    // Removing the label takes the rules out again; a direct edit of aggregated rules is undone.
    await storage.guaranteedUpdate(roleKey('widgets-view'), (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { [aggregateToEditLabel]: 'false' } } }));
    await eventually(async () => expect(await rulesOf('admin')).not.toContainEqual(widgets));
    await storage.guaranteedUpdate(roleKey('edit'), (cur) => ({ ...cur, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }));
    await eventually(async () => expect(await rulesOf('edit')).not.toContainEqual({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }));
    await controller.stop();
  });
});

describe('NamespaceController', () => {
  const nsKey = (name: string) => `//namespaces/${name}`;
  const roleIn = (ns: string, name: string, finalizers?: string[]): ApiObject => ({
    apiVersion: 'rbac.authorization.plat.io/v1',
    kind: 'Role',
    metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) },
    rules: [],
  });

  it('deletes what a terminating namespace holds, waits for objects held by finalizers, then removes the namespace', async () => {
    await storage.create(nsKey('team-a'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    await storage.create('/rbac.authorization.plat.io/roles/team-a/r1', roleIn('team-a', 'r1'));
    await storage.create('/rbac.authorization.plat.io/roles/team-a/held', roleIn('team-a', 'held', ['example.com/keep']));
    await storage.create('/rbac.authorization.plat.io/rolebindings/team-a/b1', roleIn('team-a', 'b1'));
    await storage.create('/rbac.authorization.plat.io/roles/team-b/r1', roleIn('team-b', 'r1'));
    const controller = new NamespaceController(storage, server.loopback, {
      namespacedResources: [
        { group: 'rbac.authorization.plat.io', version: 'v1', resource: 'roles' },
        { group: 'rbac.authorization.plat.io', version: 'v1', resource: 'rolebindings' },
      ],
      retryAfterMs: 50,
    });
    await controller.start();
    await storage.guaranteedUpdate(nsKey('team-a'), (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      status: { phase: 'Terminating' },
    }));
    await eventually(async () => expect((await storage.list('/rbac.authorization.plat.io/roles/team-a/')).items.map((o) => o.metadata?.name)).toEqual(['held']));
    expect((await storage.list('/rbac.authorization.plat.io/rolebindings/team-a/')).items).toEqual([]);
    expect((await storage.get('/rbac.authorization.plat.io/roles/team-a/held')).metadata?.deletionTimestamp).toBeDefined();
    expect((await storage.get(nsKey('team-a'))).metadata?.name).toBe('team-a');
    // Once the finalizer goes (the server deletes the object then), the namespace goes too.
    await storage.delete('/rbac.authorization.plat.io/roles/team-a/held');
    await eventually(async () => expect(await storage.list('//namespaces/')).toMatchObject({ items: [] }));
    expect((await storage.list('/rbac.authorization.plat.io/roles/team-b/')).items).toHaveLength(1);
    await controller.stop();
  });

  it('removes the kubernetes finalizer through the finalize subresource and leaves the others', async () => {
    // Created through the server, so its managedFields record who changed what.
    await server.loopback.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' }, spec: { finalizers: ['example.com/keep'] } });
    const controller = new NamespaceController(storage, server.loopback, { namespacedResources: [], retryAfterMs: 50 });
    await controller.start();
    expect((await server.loopback.request({ method: 'DELETE', path: '/api/v1/namespaces/team-c' })).status).toBe(202);
    await eventually(async () => expect((await storage.get(nsKey('team-c'))).spec).toEqual({ finalizers: ['example.com/keep'] }));
    const ns = await storage.get(nsKey('team-c'));
    expect(ns.status).toEqual({ phase: 'Terminating' });
    expect(ns.metadata?.managedFields).toContainEqual(expect.objectContaining({ manager: 'plat-apiserver', operation: 'Update', subresource: 'finalize' }));
    await controller.stop();
  });
});

describe('startControllers', () => {
  it('reconciles the bootstrap policy and answers only once the RBAC objects are listed', async () => {
    const rbacPolicy = new RbacPolicyStore();
    const controllers = await startControllers({
      storage,
      client: server.loopback,
      rbacPolicy,
      resources: [{ group: 'rbac.authorization.plat.io', version: 'v1', resource: 'roles', namespaced: true }],
    });
    const authorizer = new RbacAuthorizer(new RbacRuleResolver(rbacPolicy));
    const discovery: Attributes = {
      user: { username: 'ada', groups: ['system:authenticated'] },
      verb: 'get',
      resourceRequest: false,
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: '/apis',
    };
    expect(await authorizer.authorize(discovery)).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    // A binding written afterwards reaches the authorizer through the watch.
    await storage.create('/rbac.authorization.plat.io/clusterrolebindings/ada-admin', {
      apiVersion: 'rbac.authorization.plat.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'ada-admin' },
      roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'ada' }],
    });
    await eventually(async () => expect((await authorizer.authorize({ ...discovery, resourceRequest: true, verb: 'delete', resource: 'anything' })).decision).toBe('Allow'));
    expect((await storage.list('//namespaces/')).items.map((n) => n.metadata?.name)).toEqual(['default', 'plat-public', 'plat-system']);
    await controllers.stop();
  });
});
