import { bundleYaml, hasKubectl, kubectl, kubectlSuite, type KubectlSuite } from './kubectl.js';
import { createCertificateAuthority } from '@plat/x509';

/** A label selector of about `bytes` characters matching team=a: a long `in` list. */
function longSelector(bytes: number): string {
  const values = ['a'];
  for (let i = 0, length = 12; length < bytes; i++) {
    values.push(`v${i}`);
    length += `v${i}`.length + 1;
  }
  return `team in (${values.join(',')})`;
}

if (!hasKubectl) {
  describe('kubectl and the request limits', () => {
    it.skip('needs the real kubectl at /usr/bin/kubectl, which is not installed here: skipped', () => undefined);
  });
} else {
  describe('kubectl (Go client, HTTP/2) and the request limits', () => {
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };

    beforeAll(async () => {
      suite = kubectlSuite('plat-limits');
      env = await suite.start();
      const ca = await createCertificateAuthority({ commonName: 'limits-root' });
      const file = suite.write('a.json', bundleYaml('in-team-a', ca.certPem, { labels: { team: 'a' } }));
      expect((await kubectl(env, ['create', '-f', file])).code).toBe(0);
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    it('lists with a 64 KiB label selector (kube-apiserver takes 1 MiB of request line and headers)', async () => {
      const selector = longSelector(64 * 1024);
      const r = await kubectl(env, ['get', 'clustertrustbundles', '-l', selector, '-o', 'name']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('clustertrustbundle.certificates.plat.io/in-team-a\n');
    });
  });
}
