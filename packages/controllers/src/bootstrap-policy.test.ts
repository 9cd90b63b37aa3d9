import type { ClusterRole, ClusterRoleBinding } from '@plat/api-model';
import { autoupdateAnnotation, bootstrapClusterRoleBindings, bootstrapClusterRoles } from '@plat/auth';
import { MemoryStorage } from '@plat/storage';
import { ensureSystemNamespaces, reconcileBootstrapPolicy } from './bootstrap-policy.js';

const roleKey = (name: string) => `/rbac.authorization.plat.io/clusterroles/${name}`;
const bindingKey = (name: string) => `/rbac.authorization.plat.io/clusterrolebindings/${name}`;

let storage: MemoryStorage;
beforeEach(() => {
  storage = new MemoryStorage();
});
afterEach(async () => {
  await storage.close();
});

describe('reconcileBootstrapPolicy', () => {
  it('creates every bootstrap cluster role and binding, written by plat-apiserver', async () => {
    await reconcileBootstrapPolicy(storage);
    const roles = await storage.list('/rbac.authorization.plat.io/clusterroles/');
    expect(roles.items.map((r) => r.metadata?.name).sort()).toEqual(bootstrapClusterRoles().map((r) => r.metadata?.name).sort());
    const bindings = await storage.list('/rbac.authorization.plat.io/clusterrolebindings/');
    expect(bindings.items).toHaveLength(bootstrapClusterRoleBindings().length);
    const admin = (await storage.get(bindingKey('cluster-admin'))) as ClusterRoleBinding;
    expect(admin.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.plat.io', name: 'system:masters' }]);
    expect(admin.metadata?.managedFields?.[0]).toMatchObject({ manager: 'plat-apiserver', operation: 'Update', apiVersion: 'rbac.authorization.plat.io/v1' });
  });

  it('writes nothing when everything is in place (a restart)', async () => {
    await reconcileBootstrapPolicy(storage);
    const before = await storage.currentRevision();
    await reconcileBootstrapPolicy(storage);
    expect(await storage.currentRevision()).toBe(before);
  });

  it('puts back missing rules and subjects, keeps what was added, and leaves autoupdate "false" objects alone', async () => {
    await reconcileBootstrapPolicy(storage);
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
    await reconcileBootstrapPolicy(storage);

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
    await reconcileBootstrapPolicy(storage);
    const old = await storage.get(bindingKey('system:monitoring'));
    await storage.delete(bindingKey('system:monitoring'));
    await storage.create(bindingKey('system:monitoring'), {
      ...old,
      metadata: { name: 'system:monitoring' },
      roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'view' },
    });
    await reconcileBootstrapPolicy(storage);
    expect(((await storage.get(bindingKey('system:monitoring'))) as ClusterRoleBinding).roleRef?.name).toBe('system:monitoring');
  });
});

describe('ensureSystemNamespaces', () => {
  it('creates default, plat-system and plat-public once, Active with the kubernetes finalizer', async () => {
    await ensureSystemNamespaces(storage);
    await ensureSystemNamespaces(storage);
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
