import { startCluster, type TestCluster } from '../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

const aggregatedV2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

describe('discovery', () => {
  it('serves /apis, /apis/<group> and /apis/<group>/<version>', async () => {
    const groups = await c.req<{ kind: string; apiVersion: string; groups: Array<{ name: string }> }>('reader', 'GET', '/apis');
    expect(groups.json.kind).toBe('APIGroupList');
    expect(groups.json.apiVersion).toBe('v1');
    // Other groups (the review APIs) may be listed too; the resource's group is listed like this:
    // Every served version, preferred (v1) first, as kube-apiserver lists certificates.k8s.io.
    expect(groups.json.groups.find((g) => g.name === 'certificates.plat.io')).toEqual({
      name: 'certificates.plat.io',
      versions: ['v1', 'v1beta1', 'v1alpha1'].map((version) => ({ groupVersion: `certificates.plat.io/${version}`, version })),
      preferredVersion: { groupVersion: 'certificates.plat.io/v1', version: 'v1' },
    });
    expect(groups.json.groups.find((g) => g.name === 'certificates.k8s.io')).toEqual({
      name: 'certificates.k8s.io',
      versions: ['v1', 'v1beta1'].map((version) => ({ groupVersion: `certificates.k8s.io/${version}`, version })),
      preferredVersion: { groupVersion: 'certificates.k8s.io/v1', version: 'v1' },
    });
    // The plat group comes first: kubectl's RESTMapper prefers the group discovery lists first.
    const names = groups.json.groups.map((g) => g.name);
    expect(names.indexOf('certificates.plat.io')).toBeLessThan(names.indexOf('certificates.k8s.io'));
    const group = await c.req('reader', 'GET', '/apis/certificates.plat.io');
    expect(group.json).toMatchObject({ kind: 'APIGroup', name: 'certificates.plat.io' });
    const resources = await c.req<{ resources: Array<Record<string, unknown>> }>('reader', 'GET', '/apis/certificates.plat.io/v1alpha1');
    expect(resources.json).toMatchObject({ kind: 'APIResourceList', groupVersion: 'certificates.plat.io/v1alpha1' });
    expect(resources.json.resources).toEqual([
      {
        name: 'clustertrustbundles',
        singularName: 'clustertrustbundle',
        namespaced: false,
        kind: 'ClusterTrustBundle',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ctb'],
        categories: ['plat'],
        storageVersionHash: expect.stringMatching(/^[A-Za-z0-9+/]{11}=$/),
      },
    ]);
    expect((await c.req('reader', 'GET', '/apis/nothing.example.com')).status).toBe(404);
  });

  it('lists ClusterTrustBundle in every served group version with one storageVersionHash (the v1 storage version)', async () => {
    const hashes = new Set<unknown>();
    for (const gv of ['certificates.plat.io/v1', 'certificates.plat.io/v1beta1', 'certificates.plat.io/v1alpha1', 'certificates.k8s.io/v1', 'certificates.k8s.io/v1beta1']) {
      const res = await c.req<{ groupVersion: string; resources: Array<Record<string, unknown>> }>('reader', 'GET', `/apis/${gv}`);
      expect(res.status).toBe(200);
      expect(res.json.groupVersion).toBe(gv);
      expect(res.json.resources.map((r) => [r['name'], r['kind']])).toEqual([['clustertrustbundles', 'ClusterTrustBundle']]);
      hashes.add(res.json.resources[0]!['storageVersionHash']);
    }
    // Kubernetes' storageVersionHash: sha256 of the storage group/version/kind, first 8 bytes.
    const { createHash } = await import('node:crypto');
    expect([...hashes]).toEqual([createHash('sha256').update('certificates.plat.io/v1/ClusterTrustBundle').digest().subarray(0, 8).toString('base64')]);
    expect((await c.req('reader', 'GET', '/apis/certificates.k8s.io/v1alpha1')).status).toBe(404);
  });

  it('serves /api and /api/v1 for clients that start there', async () => {
    const api = await c.req('reader', 'GET', '/api');
    expect(api.json).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${new URL(c.url).port}` }],
    });
    expect((await c.req('reader', 'GET', '/api/v1')).json).toEqual({ kind: 'APIResourceList', groupVersion: 'v1', resources: [] });
  });

  it('serves aggregated discovery (apidiscovery.k8s.io/v2) as kubectl requests it, with ETag', async () => {
    const res = await c.req<{ kind: string; apiVersion: string; items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: unknown[]; freshness: string }> }> }>(
      'reader',
      'GET',
      '/apis',
      { headers: { accept: `${aggregatedV2},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json` } },
    );
    expect(res.headers['content-type']).toBe(aggregatedV2);
    expect(res.json.kind).toBe('APIGroupDiscoveryList');
    expect(res.json.apiVersion).toBe('apidiscovery.k8s.io/v2');
    const group = res.json.items.find((i) => i.metadata.name === 'certificates.plat.io')!;
    // The preferred version first, as kubectl reads it from aggregated discovery.
    expect(group.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha1']);
    expect(res.json.items.find((i) => i.metadata.name === 'certificates.k8s.io')!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(group.versions[0]!.resources[0]).toEqual({
      resource: 'clustertrustbundles',
      responseKind: { group: 'certificates.plat.io', version: 'v1', kind: 'ClusterTrustBundle' },
      scope: 'Cluster',
      singularResource: 'clustertrustbundle',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ctb'],
      categories: ['plat'],
    });
    expect(group.versions[0]!.freshness).toBe('Current');
    const etag = String(res.headers['etag']);
    const again = await c.req('reader', 'GET', '/apis', { headers: { accept: aggregatedV2, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const beta = await c.req('reader', 'GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    expect(beta.json['apiVersion']).toBe('apidiscovery.k8s.io/v2beta1');
    const legacy = await c.req<{ items: Array<{ versions: Array<{ version: string }> }> }>('reader', 'GET', '/api', { headers: { accept: aggregatedV2 } });
    expect(legacy.json.items[0]!.versions[0]!.version).toBe('v1');
  });
});

describe('openapi', () => {
  it('serves /openapi/v2 with paths, GVK extensions and the meta definitions', async () => {
    const res = await c.req<{ swagger: string; paths: Record<string, Record<string, Record<string, unknown>>>; definitions: Record<string, Record<string, unknown>> }>(
      'reader',
      'GET',
      '/openapi/v2',
    );
    expect(res.json.swagger).toBe('2.0');
    const post = res.json.paths['/apis/certificates.plat.io/v1alpha1/clustertrustbundles']!['post']!;
    expect(post['x-kubernetes-group-version-kind']).toEqual({ group: 'certificates.plat.io', version: 'v1alpha1', kind: 'ClusterTrustBundle' });
    expect(post['operationId']).toBe('createCertificatesV1alpha1ClusterTrustBundle');
    expect(res.json.definitions['io.plat.api.certificates.v1alpha1.ClusterTrustBundle']!['x-kubernetes-group-version-kind']).toEqual([
      { group: 'certificates.plat.io', kind: 'ClusterTrustBundle', version: 'v1alpha1' },
    ]);
    expect(res.json.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
  });

  it('describes ClusterTrustBundle in /openapi/v2 in every served group version, under its definition names', async () => {
    const res = await c.req<{ paths: Record<string, Record<string, Record<string, unknown>>>; definitions: Record<string, Record<string, unknown>> }>('reader', 'GET', '/openapi/v2');
    const served = [
      ['certificates.plat.io', 'v1', 'io.plat.api.certificates.v1', 'CertificatesV1'],
      ['certificates.plat.io', 'v1beta1', 'io.plat.api.certificates.v1beta1', 'CertificatesV1beta1'],
      ['certificates.k8s.io', 'v1', 'io.k8s.api.certificates.v1', 'CertificatesV1'],
      ['certificates.k8s.io', 'v1beta1', 'io.k8s.api.certificates.v1beta1', 'CertificatesV1beta1'],
    ] as const;
    for (const [group, version, prefix, op] of served) {
      const post = res.json.paths[`/apis/${group}/${version}/clustertrustbundles`]!['post']!;
      expect(post['x-kubernetes-group-version-kind']).toEqual({ group, version, kind: 'ClusterTrustBundle' });
      expect(post['operationId']).toBe(`create${op}ClusterTrustBundle`);
      const kind = res.json.definitions[`${prefix}.ClusterTrustBundle`] as { properties: Record<string, { $ref?: string }>; 'x-kubernetes-group-version-kind': unknown };
      expect(kind['x-kubernetes-group-version-kind']).toEqual([{ group, kind: 'ClusterTrustBundle', version }]);
      expect(kind.properties['spec']!.$ref).toBe(`#/definitions/${prefix}.ClusterTrustBundleSpec`);
      const list = res.json.definitions[`${prefix}.ClusterTrustBundleList`] as { properties: Record<string, { items?: { $ref: string } }> };
      expect(list.properties['items']!.items!.$ref).toBe(`#/definitions/${prefix}.ClusterTrustBundle`);
    }
    // Under Kubernetes' name the signer permission reads as upstream's does.
    const spec = res.json.definitions['io.k8s.api.certificates.v1.ClusterTrustBundleSpec'] as { properties: Record<string, { description: string }> };
    expect(spec.properties['signerName']!.description).toContain('group=certificates.k8s.io resource=signers');
    expect(res.json.paths['/apis/certificates.k8s.io/v1alpha1/clustertrustbundles']).toBeUndefined();
  });

  it('serves an /openapi/v3 document per ClusterTrustBundle group version', async () => {
    const root = await c.req<{ paths: Record<string, { serverRelativeURL: string }> }>('reader', 'GET', '/openapi/v3');
    for (const [gv, name] of [
      ['certificates.plat.io/v1', 'io.plat.api.certificates.v1.ClusterTrustBundle'],
      ['certificates.k8s.io/v1beta1', 'io.k8s.api.certificates.v1beta1.ClusterTrustBundle'],
    ] as const) {
      const doc = await c.req<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>('reader', 'GET', root.json.paths[`apis/${gv}`]!.serverRelativeURL);
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.json.paths)).toContain(`/apis/${gv}/clustertrustbundles/{name}`);
      expect(doc.json.components.schemas[name]).toBeDefined();
      // One group version per document: no other version's definitions.
      expect(Object.keys(doc.json.components.schemas).filter((k) => k.includes('.certificates.')).sort()).toEqual([name, `${name}List`, `${name}Spec`]);
    }
  });

  it('serves /openapi/v3 with a hashed URL per group version, as kubectl validation reads it', async () => {
    const root = await c.req<{ paths: Record<string, { serverRelativeURL: string }> }>('reader', 'GET', '/openapi/v3');
    const url = root.json.paths['apis/certificates.plat.io/v1alpha1']!.serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/certificates\.plat\.io\/v1alpha1\?hash=[0-9A-F]{128}$/);
    const doc = await c.req<{
      openapi: string;
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; 'x-kubernetes-group-version-kind'?: unknown }>>;
      components: { schemas: Record<string, { properties?: Record<string, { $ref?: string }> }> };
    }>('reader', 'GET', url);
    expect(doc.status).toBe(200);
    expect(doc.headers['cache-control']).toBe('public, immutable');
    expect(doc.json.openapi).toBe('3.0.0');
    const item = doc.json.paths['/apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}']!;
    for (const method of ['put', 'patch']) {
      expect(item[method]!.parameters!.map((p) => p.name)).toContain('fieldValidation');
      expect(item[method]!['x-kubernetes-group-version-kind']).toEqual({ group: 'certificates.plat.io', version: 'v1alpha1', kind: 'ClusterTrustBundle' });
    }
    const ctb = doc.json.components.schemas['io.plat.api.certificates.v1alpha1.ClusterTrustBundle']!;
    expect(ctb.properties!['metadata']!.$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(doc.json.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    expect((await c.req('reader', 'GET', '/openapi/v3/apis/nothing/v1')).status).toBe(404);
  });
});

describe('version, health and metrics', () => {
  it('serves /version', async () => {
    const res = await c.req('reader', 'GET', '/version');
    expect(res.json).toMatchObject({ major: '1', minor: '32', gitVersion: expect.stringMatching(/^v1\.32\.0/), platform: expect.any(String) });
  });

  it('answers ok on /healthz, /livez and /readyz, lists checks with ?verbose, and serves single checks', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await c.req('reader', 'GET', path);
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
    const verbose = await c.req('reader', 'GET', '/readyz?verbose');
    expect(verbose.text).toBe('[+]ping ok\n[+]log ok\n[+]storage ok\n[+]shutdown ok\nreadyz check passed\n');
    const excluded = await c.req('reader', 'GET', '/readyz?verbose&exclude=storage');
    expect(excluded.text).toContain('[+]storage excluded: ok');
    expect((await c.req('reader', 'GET', '/readyz/storage')).text).toBe('ok');
    expect((await c.req('reader', 'GET', '/livez/nothing')).status).toBe(404);
  });

  it('reports a failing readiness check with 500 and the verbose listing', async () => {
    const failing = await startCluster({ readyzChecks: [{ name: 'broken', check: async () => Promise.reject(new Error('down')) }] });
    const res = await failing.req('reader', 'GET', '/readyz');
    expect(res.status).toBe(500);
    expect(res.text).toContain('[-]broken failed: reason withheld\n');
    expect(res.text).toContain('readyz check failed');
    expect((await failing.req('reader', 'GET', '/livez')).status).toBe(200);
    await failing.close();
  });

  it('exposes request counts, latency and storage latency in Prometheus format', async () => {
    await c.req('reader', 'GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles');
    await c.req('reader', 'GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/missing');
    const res = await c.req('admin', 'GET', '/metrics');
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(
      /apiserver_request_total\{verb="LIST",group="certificates.plat.io",version="v1alpha1",resource="clustertrustbundles",subresource="",scope="cluster",component="apiserver",code="200"\} 1/,
    );
    expect(res.text).toMatch(/apiserver_request_total\{verb="GET",[^}]*resource="clustertrustbundles",[^}]*scope="resource",[^}]*code="404"\} 1/);
    expect(res.text).toMatch(/apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST"/);
    expect(res.text).toMatch(/etcd_request_duration_seconds_count\{operation="list",type="clustertrustbundles.certificates.plat.io"\} \d+/);
    expect(res.text).toContain('apiserver_current_inflight_requests');
    // Unknown resources do not get series of their own (no label growth from arbitrary paths).
    await c.req('admin', 'GET', '/apis/made.up/v1/things-for-metrics');
    const after = await c.req('admin', 'GET', '/metrics');
    expect(after.text).not.toContain('things-for-metrics');
    expect(after.text).toMatch(/apiserver_request_total\{verb="LIST",group="",version="",resource="",subresource="",scope="cluster",component="apiserver",code="404"\} 1/);
  });

  it('answers 404 with a Status for unknown paths', async () => {
    const res = await c.req('reader', 'GET', '/nothing/here');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
  });
});
