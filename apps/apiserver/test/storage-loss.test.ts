import fs from 'node:fs';
import { Agent, request } from 'undici';
import { createCertificateAuthority } from '@plat/x509';
import { adminCredentials, startApiServer, tempDir, type Credentials, type StartedApiServer } from './apiserver-process.js';

const base = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

async function call(server: StartedApiServer, creds: Credentials, method: string, p: string, body?: unknown) {
  const dispatcher = new Agent({ connect: creds });
  try {
    const res = await request(`${server.url}${p}`, {
      method: method as 'GET',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  } finally {
    await dispatcher.close();
  }
}

function bundle(name: string, pem: string) {
  return { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle: pem } };
}

describe('the SQLite data dir removed under a running server', () => {
  let dataDir: string;
  let server: StartedApiServer | undefined;
  beforeAll(() => {
    dataDir = tempDir('plat-storage-loss-');
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses writes with a 503 Status and fails /readyz, so nothing acknowledged is lost at the next start', async () => {
    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    const creds = adminCredentials(server.kubeconfig);
    const ca = await createCertificateAuthority({ commonName: 'storage-loss' });
    expect((await call(server, creds, 'POST', base, bundle('before', ca.certPem))).status).toBe(201);
    expect(await call(server, creds, 'GET', '/readyz')).toEqual({ status: 200, text: 'ok' });

    fs.rmSync(dataDir, { recursive: true, force: true });
    const refused = await call(server, creds, 'POST', base, bundle('after', ca.certPem));
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text)).toMatchObject({
      kind: 'Status',
      reason: 'ServiceUnavailable',
      code: 503,
      message: expect.stringMatching(/^storage is unavailable: the database file .*storage\.db was removed after the server opened it/),
    });
    const readyz = await call(server, creds, 'GET', '/readyz?verbose');
    expect(readyz.status).toBe(500);
    expect(readyz.text).toContain('[-]storage failed: reason withheld');
    // Liveness is not storage's business: restarting would not bring the data back.
    expect((await call(server, creds, 'GET', '/livez')).status).toBe(200);

    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startApiServer({ dataDir, args: ['--storage-backend=sqlite'] });
    const after = await call(server, adminCredentials(server.kubeconfig), 'GET', `${base}/after`);
    expect(after.status).toBe(404);
  });
});
