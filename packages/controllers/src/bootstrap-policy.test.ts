import type { ClusterRole, ClusterRoleBinding } from '@plat/api-model';
import { autoupdateAnnotation, bootstrapClusterRoleBindings, bootstrapClusterRoles } from '@plat/auth';
import type { ApiServer } from '@plat/server';
import { MemoryStorage } from '@plat/storage';
import { loopbackServer } from '../test/loopback-server.js';
import { createObject } from './api-writes.js';
import { ensureSystemNamespaces, reconcileBootstrapPolicy } from './bootstrap-policy.js';

const roleKey = (name: string) => `/rbac.authorization.plat.io/clusterroles/${name}`;
const bindingKey = (name: string) => `/rbac.authorization.plat.io/clusterrolebindings/${name}`;

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

describe('reconcileBootstrapPolicy', () => {
  it('creates every bootstrap cluster role and binding, written by plat-apiserver', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    const roles = await storage.list('/rbac.authorization.plat.io/clusterroles/');
    expect(roles.items.map((r) => r.metadata?.name).sort()).toEqual(bootstrapClusterRoles().map((r) => r.metadata?.name).sort());
    const bindings = await storage.list('/rbac.authorization.plat.io/clusterrolebindings/');
    expect(bindings.items).toHaveLength(bootstrapClusterRoleBindings().length);
    const admin = (await storage.get(bindingKey('cluster-admin'))) as ClusterRoleBinding;
    expect(admin.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.plat.io', name: 'system:masters' }]);
    expect(admin.metadata?.managedFields?.[0]).toMatchObject({ manager: 'plat-apiserver', operation: 'Update', apiVersion: 'rbac.authorization.plat.io/v1' });
  });

  it('writes through the REST handlers: every bootstrap object passes validation and carries the server defaults', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    // Read back over the API (as a client does): each object was validated on create, got its
    // uid and creationTimestamp from the handlers, and names plat-apiserver as its manager.
    const roles = (await server.loopback.get('/apis/rbac.authorization.plat.io/v1/clusterroles')) as unknown as { items: ClusterRole[] };
    const bindings = (await server.loopback.get('/apis/rbac.authorization.plat.io/v1/clusterrolebindings')) as unknown as { items: ClusterRoleBinding[] };
    expect(roles.items).toHaveLength(bootstrapClusterRoles().length);
    expect(bindings.items).toHaveLength(bootstrapClusterRoleBindings().length);
    for (const obj of [...roles.items, ...bindings.items]) {
      expect(obj.metadata).toMatchObject({ uid: expect.any(String), creationTimestamp: expect.any(String) });
      expect(obj.metadata?.managedFields?.map((m) => m.manager)).toContain('plat-apiserver');
    }
  });

  it('is refused an invalid object as an HTTP client would be, and stores nothing', async () => {
    // A rule without verbs: Kubernetes' ValidatePolicyRule requires at least one.
    const invalid: ClusterRole = { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'ClusterRole', metadata: { name: 'broken' }, rules: [{ verbs: [], apiGroups: [''], resources: ['pods'] }] };
    await expect(createObject(server.loopback, '/apis/rbac.authorization.plat.io/v1/clusterroles', invalid)).rejects.toMatchObject({
      status: { reason: 'Invalid', code: 422, details: { name: 'broken', kind: 'ClusterRole', causes: [expect.objectContaining({ field: 'rules[0].verbs' })] } },
    });
    expect((await storage.list('/rbac.authorization.plat.io/clusterroles/')).items).toEqual([]);
  });

  it('writes nothing when everything is in place (a restart)', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    const before = await storage.currentRevision();
    await reconcileBootstrapPolicy(server.loopback);
    expect(await storage.currentRevision()).toBe(before);
  });

  it('puts back missing rules and subjects, keeps what was added, and leaves autoupdate "false" objects alone', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    await storage.guaranteedUpdate(roleKey('system:basic-user'), (cur) => ({
      ...cur,
      rules: [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['things'] }],
    }));
    await storage.guaranteedUpdate(bindingKey('system:discovery'), (cur) => ({
      ...cur,
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'ada' }],
    }));
    await storage.guaranteedUpdate(bindingKey('system:clustertrustbundles-reader'), (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, annotations: { [autoupdateAnnotation]: 'false' } },
      subjects: [],
    }));
    await storage.delete(roleKey('view'));
    await reconcileBootstrapPolicy(server.loopback);

    const basic = (await storage.get(roleKey('system:basic-user'))) as ClusterRole;
    expect(basic.rules?.[0]).toEqual({ verbs: ['get'], apiGroups: ['example.com'], resources: ['things'] });
    expect(basic.rules?.slice(1)).toEqual([
      { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectaccessreviews'] },
      { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: ['authentication.plat.io'], resources: ['selfsubjectreviews'] },
    ]);
    const discovery = (await storage.get(bindingKey('system:discovery'))) as ClusterRoleBinding;
    expect(discovery.subjects?.map((s) => s.name)).toEqual(['ada', 'system:authenticated']);
    const reader = (await storage.get(bindingKey('system:clustertrustbundles-reader'))) as ClusterRoleBinding;
    expect(reader.subjects).toEqual([]);
    expect((await storage.get(roleKey('view'))).metadata?.name).toBe('view');
  });

  it('recreates a binding whose roleRef was changed', async () => {
    await reconcileBootstrapPolicy(server.loopback);
    const old = await storage.get(bindingKey('system:monitoring'));
    await storage.delete(bindingKey('system:monitoring'));
    await storage.create(bindingKey('system:monitoring'), {
      ...old,
      metadata: { name: 'system:monitoring' },
      roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'view' },
    });
    await reconcileBootstrapPolicy(server.loopback);
    expect(((await storage.get(bindingKey('system:monitoring'))) as ClusterRoleBinding).roleRef?.name).toBe('system:monitoring');
  });
});

describe('ensureSystemNamespaces', () => {
  it('creates default, plat-system and plat-public once, Active with the kubernetes finalizer', async () => {
    await ensureSystemNamespaces(server.loopback);
    await ensureSystemNamespaces(server.loopback);
    const listed = await storage.list('//namespaces/');
    expect(listed.items.map((n) => n.metadata?.name)).toEqual(['default', 'plat-public', 'plat-system']);
    expect(listed.items[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { labels: { 'plat.io/metadata.name': 'default' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });
});
