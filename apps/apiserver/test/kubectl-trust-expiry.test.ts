import { createCertificate, trustAnchorFacts } from '@plat/x509';
import { bundleYaml, hasKubectl, kubectl, kubectlSuite, type KubectlSuite } from './kubectl.js';

// Expiry in sight on the started apiserver (issue 21, server part): Warning headers on writes as
// kubectl shows them, the wide table's ANCHORS and NOT-AFTER, and the per-signer gauges on /metrics.
if (!hasKubectl) {
  describe('trust anchor expiry with kubectl', () => {
    it.skip('needs the real kubectl at /usr/bin/kubectl, which is not installed here: skipped', () => undefined);
  });
} else {
  describe('trust anchor expiry with kubectl against the started apiserver', () => {
    const day = 24 * 3600_000;
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };
    let expired: string;
    let soon: string;
    let fine: string;
    const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const facts = (pem: string) => trustAnchorFacts(pem).anchors[0]!;

    beforeAll(async () => {
      const ca = (commonName: string, fromDays: number, days: number) =>
        createCertificate({ commonName, basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date(Date.now() + fromDays * day), validityDays: days });
      [expired, soon, fine] = (await Promise.all([ca('e2e-old', -100, 10), ca('e2e-soon', -10, 15), ca('e2e-fine', 0, 3650)])).map((k) => k.certPem);
      suite = kubectlSuite('plat-e2e-expiry');
      env = await suite.start();
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    it('warns on create and server-side apply (the object is stored), shows ANCHORS and NOT-AFTER with -o wide, and counts anchors per signer on /metrics', async () => {
      const sha = (pem: string) => facts(pem).sha256.slice(0, 16);
      const file = suite.write('expiring.json', bundleYaml('example.com:mesh:2025', fine + expired, { signerName: 'example.com/mesh' }));
      const created = await kubectl(env, ['create', '-f', file]);
      expect(created.code).toBe(0);
      expect(created.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/example.com:mesh:2025 created');
      expect(created.stderr).toBe(`Warning: spec.trustBundle: trust anchor "CN=e2e-old" (sha256 ${sha(expired)}) expired at ${rfc3339(facts(expired).notAfter)}\n`);

      const applied = suite.write('applied.json', bundleYaml('example.com:mesh:2025', fine + soon, { signerName: 'example.com/mesh' }));
      const apply = await kubectl(env, ['apply', '--server-side', '--force-conflicts', '-f', applied]);
      expect(apply.code).toBe(0);
      expect(apply.stderr).toBe(`Warning: spec.trustBundle: trust anchor "CN=e2e-soon" (sha256 ${sha(soon)}) expires at ${rfc3339(facts(soon).notAfter)} (in 5d)\n`);
      // Labels only: trustBundle as stored, nothing to warn about.
      const label = await kubectl(env, ['label', 'ctb', 'example.com:mesh:2025', 'team=mesh']);
      expect(label).toMatchObject({ code: 0, stderr: '' });
      expect((await kubectl(env, ['create', '-f', suite.write('plain.json', bundleYaml('plain', fine))])).stderr).toBe('');

      const narrow = await kubectl(env, ['get', 'clustertrustbundles']);
      expect(narrow.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['NAME', 'SIGNERNAME', 'AGE']);
      const wide = await kubectl(env, ['get', 'clustertrustbundles', '-o', 'wide']);
      expect(wide.code).toBe(0);
      const [header, ...rows] = wide.stdout.trim().split('\n');
      expect(header!.split(/\s+/)).toEqual(['NAME', 'SIGNERNAME', 'AGE', 'ANCHORS', 'NOT-AFTER']);
      const row = (name: string) => rows.map((r) => r.split(/\s+/)).find((cells) => cells[0] === name);
      expect(row('example.com:mesh:2025')).toEqual(['example.com:mesh:2025', 'example.com/mesh', expect.stringMatching(/^\d+s$/), '2', rfc3339(facts(soon).notAfter)]);
      expect(row('plain')).toEqual(['plain', '<none>', expect.stringMatching(/^\d+s$/), '1', rfc3339(facts(fine).notAfter)]);

      const metricLines = async () => (await kubectl(env, ['get', '--raw', '/metrics'])).stdout.split('\n').filter((l) => l.startsWith('plat_clustertrustbundle_'));
      // The gauges follow the store through a watch: poll until the last write shows.
      const meshAnchors = 'plat_clustertrustbundle_anchors{signer_name="example.com/mesh"} 2';
      let lines = await metricLines();
      for (const end = Date.now() + 15_000; !lines.includes(meshAnchors) && Date.now() < end; lines = await metricLines()) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(lines).toEqual(
        expect.arrayContaining([
          'plat_clustertrustbundle_anchors{signer_name=""} 1',
          meshAnchors,
          `plat_clustertrustbundle_bytes{signer_name="example.com/mesh"} ${Buffer.byteLength(fine + soon)}`,
          `plat_clustertrustbundle_earliest_not_after_timestamp_seconds{signer_name="example.com/mesh"} ${facts(soon).notAfter.getTime() / 1000}`,
        ]),
      );
    });
  });
}
