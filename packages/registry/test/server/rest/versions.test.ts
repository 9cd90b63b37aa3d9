// ClusterTrustBundle in every version it is served in: certificates.plat.io v1, v1beta1, v1alpha1
// and certificates.k8s.io v1, v1beta1, all backed by the same objects (stored as
// certificates.plat.io/v1), over HTTPS against a real server.
import { objectKey } from '@plat/storage';
import { request } from 'undici';
import { bundle, startCluster, type TestCluster } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

const servedVersions = ['certificates.plat.io/v1', 'certificates.plat.io/v1beta1', 'certificates.plat.io/v1alpha1', 'certificates.k8s.io/v1', 'certificates.k8s.io/v1beta1'];
const path = (apiVersion: string, name = '') => `/apis/${apiVersion}/clustertrustbundles${name ? `/${name}` : ''}`;
const inVersion = (apiVersion: string, obj: Record<string, unknown>) => ({ ...obj, apiVersion });

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; managedFields?: Array<{ manager: string; operation: string; apiVersion: string }> };
  spec: { signerName?: string; trustBundle: string };
};
type List = { apiVersion: string; kind: string; metadata: { resourceVersion: string }; items: Array<Obj> };

describe('ClusterTrustBundle versions', () => {
  it('stores an object created in v1alpha1 as certificates.plat.io/v1 and serves it in every version', async () => {
    const created = await c.req<Obj>('writer', 'POST', path('certificates.plat.io/v1alpha1'), { body: bundle('versions-a', c.anchorPem) });
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe('certificates.plat.io/v1alpha1');
    const stored = await c.storage.get(objectKey('certificates.plat.io', 'clustertrustbundles', '', 'versions-a'));
    expect(stored.apiVersion).toBe('certificates.plat.io/v1');
    for (const apiVersion of servedVersions) {
      const got = await c.req<Obj>('reader', 'GET', path(apiVersion, 'versions-a'));
      expect([got.status, got.json.apiVersion, got.json.kind]).toEqual([200, apiVersion, 'ClusterTrustBundle']);
      expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
      expect(got.json.spec).toEqual(created.json.spec);
    }
  });

  it('reads an object stored as certificates.plat.io/v1alpha1 (every data directory before v1) in every version, and an update stores it as v1', async () => {
    // What an earlier plat-apiserver stored: the object in v1alpha1, written straight to storage.
    const key = objectKey('certificates.plat.io', 'clustertrustbundles', '', 'versions-old');
    const old = await c.storage.create(key, {
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'versions-old', uid: '8b8f2f4e-0c1f-4a5e-9e55-3b8f5f0c1d2e', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { trustBundle: c.anchorPem },
    });
    for (const apiVersion of servedVersions) {
      const got = await c.req<Obj>('reader', 'GET', path(apiVersion, 'versions-old'));
      expect([got.status, got.json.apiVersion, got.json.metadata.resourceVersion]).toEqual([200, apiVersion, old.metadata!.resourceVersion]);
    }
    const listed = await c.req<List>('reader', 'GET', `${path('certificates.k8s.io/v1')}?fieldSelector=metadata.name%3Dversions-old`);
    expect(listed.json.apiVersion).toBe('certificates.k8s.io/v1');
    expect(listed.json.items.map((i) => [i.metadata.name, i.apiVersion])).toEqual([['versions-old', undefined]]);
    const patched = await c.req<Obj>('writer', 'PATCH', path('certificates.k8s.io/v1beta1', 'versions-old'), {
      raw: JSON.stringify({ metadata: { labels: { migrated: 'yes' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect([patched.status, patched.json.apiVersion, patched.json.metadata.labels]).toEqual([200, 'certificates.k8s.io/v1beta1', { migrated: 'yes' }]);
    expect((await c.storage.get(key)).apiVersion).toBe('certificates.plat.io/v1');
  });

  it('creates, updates, patches (json, merge, strategic) and deletes under certificates.k8s.io/v1', async () => {
    const v1 = 'certificates.k8s.io/v1';
    const created = await c.req<Obj>('writer', 'POST', path(v1), { body: inVersion(v1, bundle('versions-k8s', c.anchorPem)) });
    expect([created.status, created.json.apiVersion]).toEqual([201, v1]);
    const put = await c.req<Obj>('writer', 'PUT', path(v1, 'versions-k8s'), {
      body: { ...created.json, metadata: { ...created.json.metadata, labels: { put: 'x' } } },
    });
    expect([put.status, put.json.apiVersion, put.json.metadata.labels]).toEqual([200, v1, { put: 'x' }]);
    const json = await c.req<Obj>('writer', 'PATCH', path(v1, 'versions-k8s'), {
      raw: JSON.stringify([{ op: 'add', path: '/metadata/labels/json', value: 'y' }]),
      contentType: 'application/json-patch+json',
    });
    expect(json.json.metadata.labels).toEqual({ put: 'x', json: 'y' });
    const strategic = await c.req<Obj>('writer', 'PATCH', path(v1, 'versions-k8s'), {
      raw: JSON.stringify({ metadata: { labels: { strategic: 'z' } } }),
      contentType: 'application/strategic-merge-patch+json',
    });
    expect([strategic.status, strategic.json.apiVersion, strategic.json.metadata.labels]).toEqual([200, v1, { put: 'x', json: 'y', strategic: 'z' }]);
    // A body of another version than the path's is refused as kube-apiserver refuses it.
    const mismatch = await c.req('writer', 'PUT', path(v1, 'versions-k8s'), { body: { ...strategic.json, apiVersion: 'certificates.plat.io/v1alpha1' } });
    expect([mismatch.status, mismatch.json['message']]).toEqual([
      400,
      'the API version in the data (certificates.plat.io/v1alpha1) does not match the expected API version (certificates.k8s.io/v1)',
    ]);
    const deleted = await c.req('writer', 'DELETE', path('certificates.plat.io/v1beta1', 'versions-k8s'));
    expect(deleted.status).toBe(200);
    expect((await c.req('reader', 'GET', path('certificates.plat.io/v1alpha1', 'versions-k8s'))).status).toBe(404);
  });

  it('lists with field selectors, as a Table, and deletes a collection in any version', async () => {
    for (const name of ['example.com:versions:one', 'example.com:versions:two']) {
      const res = await c.req('attester', 'POST', path('certificates.k8s.io/v1beta1'), {
        body: inVersion('certificates.k8s.io/v1beta1', bundle(name, c.anchorPem, 'example.com/versions', { metadata: { labels: { set: 'versions' } } })),
      });
      expect(res.status).toBe(201);
    }
    const bySigner = await c.req<List>('reader', 'GET', `${path('certificates.k8s.io/v1')}?fieldSelector=spec.signerName%3Dexample.com%2Fversions`);
    expect([bySigner.json.kind, bySigner.json.apiVersion]).toEqual(['ClusterTrustBundleList', 'certificates.k8s.io/v1']);
    expect(bySigner.json.items.map((i) => i.metadata.name)).toEqual(['example.com:versions:one', 'example.com:versions:two']);
    const table = await c.req<{ kind: string; columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[]; object: { apiVersion?: string; kind?: string } }> }>(
      'reader',
      'GET',
      `${path('certificates.plat.io/v1beta1')}?labelSelector=set%3Dversions`,
      { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
    );
    expect(table.json.kind).toBe('Table');
    expect(table.json.columnDefinitions.map((col) => col.name).slice(0, 2)).toEqual(['Name', 'SignerName']);
    expect(table.json.rows.map((r) => r.cells.slice(0, 2))).toEqual([
      ['example.com:versions:one', 'example.com/versions'],
      ['example.com:versions:two', 'example.com/versions'],
    ]);
    const removed = await c.req<List>('writer', 'DELETE', `${path('certificates.k8s.io/v1beta1')}?labelSelector=set%3Dversions`);
    expect([removed.status, removed.json.apiVersion, removed.json.items.length]).toEqual([200, 'certificates.k8s.io/v1beta1', 2]);
  });

  it('runs the attest admission check under either group name', async () => {
    // writer may write bundles but holds no attest permission on example.com signers.
    for (const apiVersion of ['certificates.plat.io/v1', 'certificates.k8s.io/v1']) {
      const refused = await c.req('writer', 'POST', path(apiVersion), { body: inVersion(apiVersion, bundle('example.com:attest:x', c.anchorPem, 'example.com/attest')) });
      expect(refused.status).toBe(403);
      const group = apiVersion.split('/')[0];
      expect(refused.json['message']).toBe(`clustertrustbundles.${group} "example.com:attest:x" is forbidden: user not permitted to attest for signerName "example.com/attest"`);
    }
  });

  it('sends watch events of an object written in v1alpha1 to a certificates.k8s.io/v1beta1 watcher in v1beta1, from a list resourceVersion', async () => {
    const listed = await c.req<List>('reader', 'GET', path('certificates.k8s.io/v1beta1'));
    const res = await request(`${c.url}${path('certificates.k8s.io/v1beta1')}?watch=true&resourceVersion=${listed.json.metadata.resourceVersion}`, { dispatcher: c.agent('reader') });
    const events: Array<{ type: string; object: Obj }> = [];
    const reading = (async () => {
      let buffer = '';
      try {
        for await (const chunk of res.body) {
          buffer += chunk.toString();
          for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
            events.push(JSON.parse(buffer.slice(0, nl)));
            buffer = buffer.slice(nl + 1);
          }
        }
      } catch {
        // destroyed below
      }
    })();
    const created = await c.req<Obj>('writer', 'POST', path('certificates.plat.io/v1alpha1'), { body: bundle('versions-watched', c.anchorPem) });
    await c.req('writer', 'DELETE', path('certificates.plat.io/v1', 'versions-watched'));
    const deadline = Date.now() + 15_000;
    while (events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    res.body.destroy();
    await reading;
    expect(events.map((e) => [e.type, e.object.apiVersion, e.object.kind, e.object.metadata.name])).toEqual([
      ['ADDED', 'certificates.k8s.io/v1beta1', 'ClusterTrustBundle', 'versions-watched'],
      ['DELETED', 'certificates.k8s.io/v1beta1', 'ClusterTrustBundle', 'versions-watched'],
    ]);
    expect(events[0]!.object.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });

  it('detects an apply conflict across versions (manager A in v1alpha1, B in certificates.k8s.io/v1) and records each manager\'s apiVersion', async () => {
    const apply = (apiVersion: string, manager: string, labels: Record<string, string>, force = false) =>
      c.req<Obj & { message?: string; details?: { causes?: Array<{ message: string; field: string }> } }>(
        'writer',
        'PATCH',
        `${path(apiVersion, 'versions-ssa')}?fieldManager=${manager}${force ? '&force=true' : ''}`,
        { raw: JSON.stringify(inVersion(apiVersion, bundle('versions-ssa', c.anchorPem, undefined, { metadata: { labels } }))), contentType: 'application/apply-patch+yaml' },
      );
    expect((await apply('certificates.plat.io/v1alpha1', 'manager-a', { owner: 'a' })).status).toBe(201);
    const conflict = await apply('certificates.k8s.io/v1', 'manager-b', { owner: 'b' });
    expect(conflict.status).toBe(409);
    expect(conflict.json.message).toBe('Apply failed with 1 conflict: conflict with "manager-a": .metadata.labels.owner');
    expect(conflict.json.details!.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.metadata.labels.owner' }]);
    // Without a conflicting value, B shares the fields in its own version.
    const shared = await apply('certificates.k8s.io/v1', 'manager-b', { owner: 'a' });
    expect(shared.status).toBe(200);
    expect(shared.json.metadata.managedFields!.map((m) => [m.manager, m.operation, m.apiVersion]).sort()).toEqual([
      ['manager-a', 'Apply', 'certificates.plat.io/v1alpha1'],
      ['manager-b', 'Apply', 'certificates.k8s.io/v1'],
    ]);
    // Every version serves the same entries, as recorded.
    const read = await c.req<Obj>('reader', 'GET', path('certificates.plat.io/v1beta1', 'versions-ssa'));
    expect(read.json.metadata.managedFields).toEqual(shared.json.metadata.managedFields);
    const forced = await apply('certificates.k8s.io/v1', 'manager-b', { owner: 'b' }, true);
    expect([forced.status, forced.json.metadata.labels]).toEqual([200, { owner: 'b' }]);
    // An Update records the version it was made in too.
    const update = await c.req<Obj>('writer', 'PATCH', `${path('certificates.plat.io/v1beta1', 'versions-ssa')}?fieldManager=editor`, {
      raw: JSON.stringify({ metadata: { labels: { edited: 'yes' } } }),
      contentType: 'application/merge-patch+json',
    });
    expect(update.json.metadata.managedFields!.find((m) => m.manager === 'editor')).toMatchObject({ operation: 'Update', apiVersion: 'certificates.plat.io/v1beta1' });
  });

  it('reads a protobuf body under every version (the same generated.proto message)', async () => {
    const varint = (n: number): Buffer => {
      const out: number[] = [];
      for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
      out.push(n);
      return Buffer.from(out);
    };
    const bytes = (field: number, value: Buffer | string) => {
      const b = typeof value === 'string' ? Buffer.from(value) : value;
      return Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
    };
    const apiVersion = 'certificates.k8s.io/v1';
    const raw = Buffer.concat([bytes(1, bytes(1, 'versions-proto')), bytes(2, Buffer.concat([bytes(2, c.anchorPem)]))]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'binary'), bytes(1, Buffer.concat([bytes(1, apiVersion), bytes(2, 'ClusterTrustBundle')])), bytes(2, raw)]);
    const created = await c.req<Obj>('writer', 'POST', path(apiVersion), { raw: body, contentType: 'application/vnd.kubernetes.protobuf' });
    expect([created.status, created.json.apiVersion, created.json.metadata.name, created.json.spec.trustBundle]).toEqual([201, apiVersion, 'versions-proto', c.anchorPem]);
  });
});
