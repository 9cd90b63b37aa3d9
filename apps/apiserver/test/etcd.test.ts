import fs from 'node:fs';
import net from 'node:net';
import { Agent, request } from 'undici';
import { TestEtcd, hasEtcd } from '@plat/storage/testing';
import { createCertificateAuthority } from '@plat/x509';
import { adminCredentials, startApiServer, tempDir, type Credentials, type StartedApiServer } from './apiserver-process.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function readyz(server: StartedApiServer, connect: Credentials): Promise<{ status: number; text: string }> {
  const dispatcher = new Agent({ connect });
  try {
    const res = await request(`${server.url}/readyz?verbose`, { dispatcher });
    return { status: res.statusCode, text: await res.body.text() };
  } finally {
    await dispatcher.close();
  }
}

async function until<T>(what: string, timeoutMs: number, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const base = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

(hasEtcd ? describe : describe.skip)('apiserver on --storage-backend=etcd3 (real etcd)', () => {
  let etcd: TestEtcd;
  let dataDir: string;
  let server: StartedApiServer | undefined;

  beforeAll(async () => {
    dataDir = tempDir('plat-e2e-etcd-api-');
    etcd = new TestEtcd();
    await etcd.start();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await etcd?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores objects in etcd under --etcd-prefix and finds them again after a restart', async () => {
    const args = ['--storage-backend=etcd3', `--etcd-servers=${etcd.url}`, '--etcd-prefix=/plat-e2e'];
    server = await startApiServer({ dataDir, args });
    const connect = adminCredentials(server.kubeconfig);
    const ca = await createCertificateAuthority({ commonName: 'etcd-e2e' });
    let dispatcher = new Agent({ connect });
    const created = await request(`${server.url}${base}`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'in-etcd' }, spec: { trustBundle: ca.certPem } }),
    });
    expect(created.statusCode).toBe(201);
    const rv = ((await created.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    await dispatcher.close();

    // The key is really in etcd, under the prefix.
    const range = await fetch(`${etcd.url}/v3/kv/range`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from('/plat-e2e/').toString('base64'), range_end: Buffer.from('/plat-e2e0').toString('base64'), keys_only: true }),
    });
    const keys = (((await range.json()) as { kvs?: { key: string }[] }).kvs ?? []).map((kv) => Buffer.from(kv.key, 'base64').toString());
    expect(keys.some((k) => k.startsWith('/plat-e2e/') && k.endsWith('/in-etcd'))).toBe(true);

    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startApiServer({ dataDir, args });
    dispatcher = new Agent({ connect });
    const got = await request(`${server.url}${base}/in-etcd`, { dispatcher });
    expect(got.statusCode).toBe(200);
    expect(((await got.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(rv);
    await dispatcher.close();
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });

  it('fails /readyz while etcd is down and is ready again when it is back', async () => {
    server = await startApiServer({ dataDir, args: ['--storage-backend=etcd3', `--etcd-servers=${etcd.url}`, '--etcd-prefix=/plat-e2e-ready'] });
    const connect = adminCredentials(server.kubeconfig);
    expect((await readyz(server, connect)).status).toBe(200);
    await etcd.stop();
    const down = await until('/readyz to fail', 15_000, () => readyz(server!, connect), (r) => r.status === 500);
    expect(down.text).toContain('[-]storage failed: reason withheld');
    await etcd.start();
    await until('/readyz to pass again', 30_000, () => readyz(server!, connect), (r) => r.status === 200);
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  });

  it('refuses to start when etcd cannot be reached, saying so', async () => {
    const port = await freePort();
    const dir = tempDir('plat-e2e-etcd-down-');
    try {
      const started = startApiServer({ dataDir: dir, args: ['--storage-backend=etcd3', `--etcd-servers=http://127.0.0.1:${port}`], timeoutMs: 45_000 });
      await expect(started).rejects.toThrow(/exited with 1[\s\S]*Error: cannot open storage \(--storage-backend=etcd3\): .*ECONNREFUSED/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
