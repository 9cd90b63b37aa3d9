import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canonicalTrustBundle, createCertificateAuthority, type PemKeyPair } from '@plat/x509';
import { buildBundles, spawnClientctl, startApiserver, waitUntil, type ApiserverProcess } from '../test/processes.js';

// `clientctl trust sync` as a real process under a real apiserver process (SQLite) that is
// restarted gracefully and killed, on the same port: the file follows every change, the sync never
// exits until SIGTERM, and then exits 0.
let dir: string;
let bundles: { apiserver: string; clientctl: string };
let apiserver: ApiserverProcess;
let a: PemKeyPair, b: PemKeyPair;
const signer = 'example.com/mesh';

function run(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [bundles.clientctl, ...args], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: apiserver.kubeconfig } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin ?? '');
  });
}

async function publish(pems: PemKeyPair[]): Promise<void> {
  const manifest = JSON.stringify({
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name: 'example.com:mesh:roots' },
    spec: { signerName: signer, trustBundle: pems.map((p) => p.certPem).join('') },
  });
  const r = await run(['apply', '-f', '-'], manifest);
  expect(r).toMatchObject({ code: 0, stderr: '' });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'clientctl-trust-sync-'));
  [bundles, a, b] = await Promise.all([buildBundles(), createCertificateAuthority({ commonName: 'sync-a' }), createCertificateAuthority({ commonName: 'sync-b' })]);
  apiserver = await startApiserver(bundles.apiserver, path.join(dir, 'data'));
}, 120_000);
afterAll(async () => {
  await apiserver?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('clientctl trust sync (processes)', () => {
  it('keeps the file current across an apiserver restart and a crash, and exits 0 on SIGTERM', async () => {
    await publish([a]);
    const file = path.join(dir, 'mesh-ca.pem');
    const log = path.join(dir, 'exec.log');
    const sync = spawnClientctl(bundles.clientctl, ['trust', 'sync', '--signer', signer, '--to', file, '--exec', `echo "$PLAT_TRUST_DIGEST" >> ${log}`], {
      HOME: dir,
      KUBECONFIG: apiserver.kubeconfig,
    });
    const content = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    try {
      await waitUntil('the first write', () => content() === canonicalTrustBundle([a.certPem]).pem);
      expect(statSync(file).mode & 0o777).toBe(0o644);

      // A graceful restart on the same port, then a change.
      const port = apiserver.port;
      expect(await apiserver.stop('SIGTERM')).toBe(0);
      await waitUntil('a logged retry', () => /retrying in/.test(sync.stderr()));
      apiserver = await startApiserver(bundles.apiserver, path.join(dir, 'data'), port);
      await publish([a, b]);
      await waitUntil('the second write', () => content() === canonicalTrustBundle([a.certPem, b.certPem]).pem);

      // A crash (no goodbye on the connection), then a change.
      await apiserver.stop('SIGKILL');
      apiserver = await startApiserver(bundles.apiserver, path.join(dir, 'data'), port);
      await publish([b]);
      await waitUntil('the third write', () => content() === canonicalTrustBundle([b.certPem]).pem);
      await waitUntil('three --exec runs', () => existsSync(log) && readFileSync(log, 'utf8').split('\n').length === 4);
      expect(readFileSync(log, 'utf8')).toBe(
        [canonicalTrustBundle([a.certPem]), canonicalTrustBundle([a.certPem, b.certPem]), canonicalTrustBundle([b.certPem])].map((x) => `${x.digest}\n`).join(''),
      );
      expect(sync.child.exitCode).toBeNull();
    } finally {
      sync.child.kill('SIGTERM');
    }
    expect(await sync.exited).toBe(0);
    expect(sync.stderr()).toMatch(/trust\.ts\] stopped\n$/);
  }, 90_000);

  it('fails at once, in kubectl\'s shape, when the credentials are refused', async () => {
    const sync = spawnClientctl(bundles.clientctl, ['trust', 'sync', '--signer', signer, '--to', path.join(dir, 'x.pem'), '--server', apiserver.url, '--insecure-skip-tls-verify'], {
      HOME: dir,
      KUBECONFIG: path.join(dir, 'none'),
    });
    expect(await sync.exited).toBe(1);
    expect(sync.stderr()).toMatch(/^error: You must be logged in to the server \(Unauthorized\)\n$|^Error from server \(Forbidden\)/);
  }, 30_000);
});
