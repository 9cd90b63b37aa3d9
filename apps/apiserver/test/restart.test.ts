import fs from 'node:fs';
import { Agent, request } from 'undici';
import { createCertificateAuthority } from '@plat/x509';
import { adminCredentials, startApiServer, tempDir, type Credentials, type StartedApiServer } from './apiserver-process.js';

async function call(server: StartedApiServer, creds: Credentials, method: string, p: string, body?: unknown, contentType = 'application/json') {
  const dispatcher = new Agent({ connect: creds });
  try {
    const res = await request(`${server.url}${p}`, {
      method: method as 'GET',
      dispatcher,
      headers: { 'content-type': contentType, accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> & { metadata: Record<string, string> } };
  } finally {
    await dispatcher.close();
  }
}

const base = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

describe('restart on the same SQLite data directory', () => {
  let dataDir: string;
  let server: StartedApiServer | undefined;

  beforeAll(() => {
    dataDir = tempDir('plat-restart-');
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps objects with their resourceVersions, the dev PKI and admin.conf across a graceful restart', async () => {
    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    expect(server.stdout()).toContain('Development PKI in');
    expect(server.stdout()).toContain('(created)');
    expect(server.stdout()).toContain(`kubectl --kubeconfig ${server.kubeconfig} get clustertrustbundles`);
    const creds = adminCredentials(server.kubeconfig);
    const before: Record<string, string> = {};
    for (const name of ['alpha', 'beta', 'gamma']) {
      const ca = await createCertificateAuthority({ commonName: `restart-${name}` });
      const res = await call(server, creds, 'POST', base, {
        apiVersion: 'certificates.plat.io/v1alpha1',
        kind: 'ClusterTrustBundle',
        metadata: { name },
        spec: { trustBundle: ca.certPem },
      });
      expect(res.status).toBe(201);
      before[name] = res.body.metadata.resourceVersion;
    }
    // An update moves one object's resourceVersion past its creation.
    const patched = await call(server, creds, 'PATCH', `${base}/beta`, { metadata: { labels: { moved: 'yes' } } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(Number(patched.body.metadata.resourceVersion)).toBeGreaterThan(Number(before.gamma));
    before.beta = patched.body.metadata.resourceVersion;
    const listBefore = await call(server, creds, 'GET', base);

    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.stderr()).toContain('Shut down cleanly');

    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    expect(server.stdout()).toContain('(reused)');
    // admin.conf is rewritten for the new port but keeps the same credentials.
    expect(adminCredentials(server.kubeconfig)).toEqual(creds);
    const list = await call(server, creds, 'GET', base);
    expect(list.status).toBe(200);
    const items = (list.body.items as { metadata: { name: string; resourceVersion: string; uid: string } }[]).map((i) => [
      i.metadata.name,
      i.metadata.resourceVersion,
    ]);
    expect(items).toEqual([
      ['alpha', before.alpha],
      ['beta', before.beta],
      ['gamma', before.gamma],
    ]);
    expect(list.body.items).toEqual(listBefore.body.items);
    // The list's resourceVersion does not go backwards, and new writes continue after it.
    expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(listBefore.body.metadata.resourceVersion));
    const ca = await createCertificateAuthority({ commonName: 'restart-delta' });
    const created = await call(server, creds, 'POST', base, {
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'delta' },
      spec: { trustBundle: ca.certPem },
    });
    expect(Number(created.body.metadata.resourceVersion)).toBeGreaterThan(Number(before.gamma));
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });

  it('serves the custom resources of an Established CRD again after a restart, before it listens', async () => {
    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    let creds = adminCredentials(server.kubeconfig);
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { size: { type: 'integer' } } } } }],
      },
    };
    expect((await call(server, creds, 'POST', crds, crd)).status).toBe(201);
    const gizmos = '/apis/example.com/v1/gizmos';
    let created = { status: 0 };
    for (const end = Date.now() + 15_000; created.status !== 201 && Date.now() < end; ) {
      created = await call(server, creds, 'POST', gizmos, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g1' }, size: 3 });
      if (created.status !== 201) await new Promise((r) => setTimeout(r, 50));
    }
    expect(created.status).toBe(201);
    expect(await server.stop('SIGTERM')).toBe(0);

    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    creds = adminCredentials(server.kubeconfig);
    // The first request after "serving" finds the resource: the CRD controller served it at start.
    const got = await call(server, creds, 'GET', `${gizmos}/g1`);
    expect([got.status, got.body['size']]).toEqual([200, 3]);
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });
});
