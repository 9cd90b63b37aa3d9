import { existsSync, mkdtempSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiscoveryClient, discoveryCacheFolder, resourcePath } from './discovery.js';
import { RestClient } from './rest-client.js';
import type { RestConfig } from './rest-config.js';
import { makePki, sendJson, startHttpsServer, type Pki, type TestServer } from '../test/tls-fixture.js';

let pki: Pki;
let server: TestServer;
let extraGroup = false;

const groups = () => ({
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [
    {
      name: 'certificates.plat.io',
      versions: [{ groupVersion: 'certificates.plat.io/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'certificates.plat.io/v1alpha1', version: 'v1alpha1' },
    },
    ...(extraGroup
      ? [{ name: 'late.plat.io', versions: [{ groupVersion: 'late.plat.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'late.plat.io/v1', version: 'v1' } }]
      : []),
  ],
});

beforeAll(async () => {
  pki = makePki();
  server = await startHttpsServer(pki, (req, res) => {
    const url = req.url.split('?')[0];
    if (url === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (url === '/apis') return sendJson(res, 200, groups());
    if (url === '/api/v1') {
      return sendJson(res, 200, {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [{ name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] }],
      });
    }
    if (url === '/apis/certificates.plat.io/v1alpha1') {
      return sendJson(res, 200, {
        kind: 'APIResourceList',
        groupVersion: 'certificates.plat.io/v1alpha1',
        resources: [
          { name: 'clustertrustbundles', singularName: 'clustertrustbundle', namespaced: false, kind: 'ClusterTrustBundle', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ctb'] },
          { name: 'clustertrustbundles/status', singularName: '', namespaced: false, kind: 'ClusterTrustBundle', verbs: ['get'] },
        ],
      });
    }
    if (url === '/apis/late.plat.io/v1') {
      return sendJson(res, 200, { kind: 'APIResourceList', groupVersion: 'late.plat.io/v1', resources: [{ name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get'] }] });
    }
    return sendJson(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
  });
});
afterAll(() => server.close());

function client(): RestClient {
  const cfg: RestConfig = {
    server: server.url, contextName: '', clusterName: '', userName: '', namespace: 'default', namespaceExplicit: false,
    ca: pki.ca, insecureSkipTlsVerify: false, timeoutMs: 0, disableCompression: false, userAgent: 'test',
  };
  return new RestClient(cfg);
}

describe('DiscoveryClient', () => {
  it('resolves plural, singular, kind, short name and type.group', async () => {
    const rest = client();
    const d = new DiscoveryClient(rest, { cacheDir: '' });
    for (const t of ['clustertrustbundles', 'clustertrustbundle', 'ClusterTrustBundle', 'ctb', 'clustertrustbundles.certificates.plat.io', 'ctb.v1alpha1.certificates.plat.io']) {
      const r = await d.resolveType(t);
      expect([r.group, r.version, r.name, r.namespaced, r.subresources]).toEqual(['certificates.plat.io', 'v1alpha1', 'clustertrustbundles', false, ['status']]);
    }
    expect((await d.resolveType('ns')).name).toBe('namespaces');
    await expect(d.resolveType('pods')).rejects.toThrow(`the server doesn't have a resource type "pods"`);
    expect(await d.resourceForKind('certificates.plat.io/v1alpha1', 'ClusterTrustBundle')).toMatchObject({ name: 'clustertrustbundles' });
    expect(await d.resourceForKind('x.io/v1', 'Foo')).toBeUndefined();
    await rest.close();
  });

  it('caches discovery on disk under the server folder and serves later clients from it', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'plat-cache-'));
    const rest = client();
    await new DiscoveryClient(rest, { cacheDir }).resolveType('ctb');
    const folder = discoveryCacheFolder(cacheDir, server.url);
    expect(folder).toBe(path.join(cacheDir, 'discovery', `127.0.0.1_${new URL(server.url).port}`));
    expect(existsSync(path.join(folder, 'servergroups.json'))).toBe(true);
    expect(existsSync(path.join(folder, 'certificates.plat.io', 'v1alpha1', 'serverresources.json'))).toBe(true);
    const before = server.requests.length;
    await new DiscoveryClient(rest, { cacheDir }).resolveType('clustertrustbundle');
    expect(server.requests.length).toBe(before);
    // Past the TTL the cache is read from the server again.
    const old = new Date(Date.now() - 7 * 3600_000);
    utimesSync(path.join(folder, 'servergroups.json'), old, old);
    await new DiscoveryClient(rest, { cacheDir }).resolveType('ctb');
    expect(server.requests.slice(before).map((r) => r.url.split('?')[0])).toContain('/apis');
    await rest.close();
  });

  it('refreshes a stale cache once when a type is missing', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'plat-cache-'));
    const rest = client();
    extraGroup = false;
    await new DiscoveryClient(rest, { cacheDir }).resolveType('ctb');
    extraGroup = true;
    const r = await new DiscoveryClient(rest, { cacheDir }).resolveType('widgets');
    expect(r).toMatchObject({ group: 'late.plat.io', namespaced: true });
    extraGroup = false;
    await rest.close();
  });

  it('builds request paths for cluster-scoped and namespaced resources', () => {
    expect(resourcePath({ group: 'certificates.plat.io', version: 'v1alpha1', name: 'clustertrustbundles', namespaced: false }, 'ignored', 'a:b', 'status')).toBe(
      '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a:b/status',
    );
    expect(resourcePath({ group: '', version: 'v1', name: 'configmaps', namespaced: true }, 'ns1')).toBe('/api/v1/namespaces/ns1/configmaps');
  });
});
