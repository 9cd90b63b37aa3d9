import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { openStorage, type Storage } from '@plat/storage';
import { TestEtcd, hasEtcd } from '@plat/storage/testing';
import { namespaceResource, rbacResources } from '../index.js';
import { startCluster, type TestCluster } from '../../test/cluster.js';

// The RBAC kinds (namespaced and cluster scoped) over the two persistent backends: keys with a
// namespace segment listed per namespace and across namespaces, server-side apply through both
// group names, watch from a resourceVersion. rbac-resources.test.ts covers the rest over memory.

type Obj = { metadata: Record<string, string>; rules?: unknown[]; [k: string]: unknown };
const k8s = '/apis/rbac.authorization.k8s.io/v1';
const plat = '/apis/rbac.authorization.plat.io/v1';

const backends: [string, () => Promise<{ storage: Storage; close(): Promise<void> }>][] = [
  [
    'sqlite',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-rbac-sqlite-'));
      const storage = await openStorage({ backend: 'sqlite', dataDir });
      return { storage, close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
    },
  ],
];
if (hasEtcd) {
  backends.push([
    'etcd3',
    async () => {
      const etcd = new TestEtcd();
      await etcd.start();
      const storage = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: '/registry' });
      return { storage, close: () => etcd.stop() };
    },
  ]);
} else {
  console.warn('RBAC over etcd skipped: no etcd binary on this machine');
}

describe.each(backends)('RBAC objects over %s', (_name, open) => {
  let c: TestCluster;
  let backend: { storage: Storage; close(): Promise<void> };
  beforeAll(async () => {
    backend = await open();
    c = await startCluster({ storage: backend.storage, resources: [namespaceResource(), ...rbacResources({ resolver: new RbacRuleResolver(new RbacPolicyStore()) })] });
    for (const ns of ['team-a', 'team-ab', 'team-b']) {
      expect((await c.req('admin', 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await c.close();
    await backend.storage.close();
    await backend.close();
  });

  it('lists roles per namespace (a namespace is no prefix of another) and across namespaces, and watches them', async () => {
    const list = await c.req<{ metadata: { resourceVersion: string } }>('admin', 'GET', `${k8s}/roles`);
    const watch = c.req<never>('admin', 'GET', `${k8s}/roles?watch=1&resourceVersion=${list.json.metadata.resourceVersion}&timeoutSeconds=3`);
    for (const [ns, name] of [['team-a', 'reader'], ['team-ab', 'reader'], ['team-b', 'writer']]) {
      const r = await c.req('admin', 'POST', `${k8s}/namespaces/${ns}/roles`, {
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
      });
      expect(r.status).toBe(201);
    }
    const names = async (p: string) => (await c.req<{ items: Obj[] }>('admin', 'GET', p)).json.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(await names(`${k8s}/namespaces/team-a/roles`)).toEqual(['team-a/reader']);
    expect(await names(`${plat}/roles`)).toEqual(['team-a/reader', 'team-ab/reader', 'team-b/writer']);
    expect(await names(`${k8s}/roles?fieldSelector=metadata.namespace%3Dteam-b`)).toEqual(['team-b/writer']);
    const events = (await watch).text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: Obj });
    expect(events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual(['ADDED team-a/reader', 'ADDED team-ab/reader', 'ADDED team-b/writer']);
    expect(events[0]!.object.apiVersion).toBe('rbac.authorization.k8s.io/v1');
  });

  it('applies server-side through both group names, and deletes', async () => {
    const apply = (base: string, group: string, verbs: string[]) =>
      c.req<Obj>('admin', 'PATCH', `${base}/clusterrolebindings/applied?fieldManager=tester`, {
        contentType: 'application/apply-patch+yaml',
        body: {
          apiVersion: `${group}/v1`,
          kind: 'ClusterRoleBinding',
          metadata: { name: 'applied', labels: { verbs: verbs.join('-') } },
          roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'view' },
          subjects: [{ apiGroup: group, kind: 'User', name: 'alice' }],
        },
      });
    expect((await apply(k8s, 'rbac.authorization.k8s.io', ['get'])).status).toBe(201);
    const again = await apply(plat, 'rbac.authorization.plat.io', ['get', 'list']);
    expect(again.status).toBe(200);
    expect(again.json.metadata.labels).toEqual({ verbs: 'get-list' });
    const read = await c.req<Obj>('admin', 'GET', `${k8s}/clusterrolebindings/applied`);
    expect(read.json['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    expect((await c.req('admin', 'DELETE', `${plat}/clusterrolebindings/applied`)).status).toBe(200);
    expect((await c.req('admin', 'GET', `${k8s}/clusterrolebindings/applied`)).status).toBe(404);
  });
});
