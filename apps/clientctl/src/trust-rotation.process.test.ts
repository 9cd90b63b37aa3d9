import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { RestClient, loadKubeConfig, resolveRestConfig } from '@plat/client';
import { followTrustAnchors, type FollowedTrustAnchors } from '@plat/trust';
import { canonicalTrustBundle, createCertificateAuthority, issueServingCertificate } from '@plat/x509';
import { bash, startWalkthroughServer, stopWalkthroughServer, ReloadingTlsService, spawnClientctl, waitUntil, walkthroughBlocks, type ApiserverProcess, type RunningProcess } from '../test/processes.js';

// docs/trust-distribution.md, "Rotate a CA without downtime", run block by block with bash against
// a started apiserver, a real TLS service (served here, reloaded when a block issues its
// certificate), `clientctl trust sync` and curl as the clients, and a Node consumer on
// followTrustAnchors beside them. Plus the rotation done in the wrong order, to see that the
// Node consumer fails before the new anchor is published and recovers after, without a restart.
let dir: string;
let bundles: { apiserver: string; clientctl: string };
let apiserver: ApiserverProcess;
let shimDir: string;



async function nodeConsumer(kubeconfig: string, signal: AbortSignal): Promise<{ client: RestClient; trust: FollowedTrustAnchors }> {
  const client = new RestClient(resolveRestConfig(loadKubeConfig({ explicitPath: kubeconfig })));
  const trust = await followTrustAnchors(client, { signerName: 'example.com/mesh', labelSelector: {} }, { signal, backoff: { initialMs: 100, maxMs: 1000 } });
  return { client, trust };
}

beforeAll(async () => {
  ({ dir, bundles, shimDir, apiserver } = await startWalkthroughServer('clientctl-trust-rotation-'));
}, 120_000);
afterAll(() => stopWalkthroughServer({ dir, apiserver }));

describe('Rotate a CA without downtime (docs/trust-distribution.md)', () => {
  it('runs as written: every client keeps working through the rotation', async () => {
    const blocks = walkthroughBlocks('trust-distribution.md', '## Rotate a CA without downtime', '## Expiry dashboard and alerts');
    expect(blocks.map((b) => b.mark)).toEqual(['environment', 'run', 'issue ca-2025', 'background', 'run', 'run', 'issue ca-2026', 'run', 'run']);
    const work = mkdtempSync(path.join(dir, 'walkthrough-'));
    const service = new ReloadingTlsService();
    const env = { PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig, SERVICE: '' };
    const background: RunningProcess[] = [];
    const controller = new AbortController();
    let consumer: Awaited<ReturnType<typeof nodeConsumer>> | undefined;
    const viaNode = async () => (await request(`${service.url}/`, { dispatcher: consumer!.trust.agent })).body.text();
    try {
      for (const block of blocks) {
        if (block.mark === 'environment') {
          // The walk-through's own values: this test's apiserver and service.
          expect(block.code).toContain('export KUBECONFIG=');
          expect(block.code).toContain('export SERVICE=');
          continue;
        }
        if (block.mark === 'background') {
          const [cmd, ...args] = block.code.trim().split(/\s+/);
          expect(cmd).toBe('clientctl');
          background.push(spawnClientctl(bundles.clientctl, args, env, work));
          continue;
        }
        const r = await bash(block.code, work, env);
        if (r.code !== 0) throw new Error(`block failed (${r.code}):\n${block.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\nsync:\n${background.map((p) => p.stderr()).join('')}`);
        if (block.mark.startsWith('issue ')) {
          await service.reload(path.join(work, 'service.crt'), path.join(work, 'service.key'));
          env.SERVICE = service.url;
        }
        if (block.code.includes('curl ')) expect(r.stdout).toMatch(/(^|\n)ok\n$/);
        // The Node consumer starts once the signer has a bundle, and must answer at every step.
        if (!consumer && block.code.includes('clientctl apply -f mesh-2025.yaml')) consumer = await nodeConsumer(apiserver.kubeconfig, controller.signal);
        if (consumer && service.url) {
          const resolved = await bash('clientctl trust resolve --signer example.com/mesh -o json', work, env);
          const digest = (JSON.parse(resolved.stdout) as { digest: string }).digest;
          await waitUntil('the Node consumer on the current anchors', () => consumer!.trust.current().digest === digest);
          expect(await viaNode()).toBe('ok\n');
        }
      }
      // The end state: only the 2026 CA, in the file trust sync keeps and in the Node consumer.
      const ca2026 = readFileSync(path.join(work, 'ca-2026.crt'), 'utf8');
      expect(readFileSync(path.join(work, 'mesh-ca.pem'), 'utf8')).toBe(canonicalTrustBundle([ca2026]).pem);
      expect(consumer!.trust.current().anchors.map((x) => x.subject)).toEqual(['CN=mesh-ca-2026']);
    } finally {
      controller.abort();
      await consumer?.trust.agent.close();
      await consumer?.client.close();
      for (const p of background) p.child.kill('SIGTERM');
      for (const p of background) expect(await p.exited).toBe(0);
      await service.close();
    }
  }, 120_000);

  it('in the wrong order, a client fails until the new anchor is published, then recovers without a restart', async () => {
    const [ca1, ca2] = await Promise.all([createCertificateAuthority({ commonName: 'order-ca-1' }), createCertificateAuthority({ commonName: 'order-ca-2' })]);
    const [leaf1, leaf2] = await Promise.all([
      issueServingCertificate(ca1, { commonName: 'localhost', dnsNames: ['localhost'] }),
      issueServingCertificate(ca2, { commonName: 'localhost', dnsNames: ['localhost'] }),
    ]);
    const env = { PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig };
    const publish = (pem: string) =>
      bash(`clientctl apply -f - <<'EOF'\n${JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'example.com:order:roots' }, spec: { signerName: 'example.com/order', trustBundle: pem } })}\nEOF`, dir, env);
    expect((await publish(ca1.certPem)).code).toBe(0);
    const controller = new AbortController();
    const client = new RestClient(resolveRestConfig(loadKubeConfig({ explicitPath: apiserver.kubeconfig })));
    const trust = await followTrustAnchors(client, { signerName: 'example.com/order', labelSelector: {} }, { signal: controller.signal });
    const server = createServer({ cert: leaf1.certPem, key: leaf1.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://localhost:${(server.address() as AddressInfo).port}/`;
    const get = async () => (await request(url, { dispatcher: trust.agent })).body.text();
    try {
      expect(await get()).toBe('ok');
      // Issuance switches before the anchor is published: new connections fail verification.
      server.setSecureContext({ cert: leaf2.certPem, key: leaf2.keyPem });
      server.closeAllConnections();
      await expect(get()).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      expect((await publish(ca1.certPem + ca2.certPem)).code).toBe(0);
      await waitUntil('the new anchor', () => trust.current().anchors.length === 2);
      expect(await get()).toBe('ok');
    } finally {
      controller.abort();
      await trust.done;
      await trust.agent.close();
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);
});
