// Server-side apply with the real kubectl against the started apiserver:
// kubectl apply --server-side [--force-conflicts] [--field-manager X].
import { parse } from 'yaml';
import { createCertificateAuthority } from '@plat/x509';
import { bundleYaml, hasKubectl, kubectl, kubectlSuite, type KubectlSuite } from './kubectl.js';

type Entry = { manager: string; operation: string; fieldsV1: Record<string, unknown> };

if (!hasKubectl) {
  describe('kubectl apply --server-side', () => {
    it.skip('needs the real kubectl at /usr/bin/kubectl, which is not installed here: skipped', () => undefined);
  });
} else {
  describe('kubectl apply --server-side against the started apiserver', () => {
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };
    let caPem: string;
    let ca2Pem: string;

    beforeAll(async () => {
      suite = kubectlSuite('plat-ssa');
      env = await suite.start();
      caPem = (await createCertificateAuthority({ commonName: 'ssa-root-1' })).certPem;
      ca2Pem = (await createCertificateAuthority({ commonName: 'ssa-root-2' })).certPem;
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    const write = (name: string, content: string) => suite.write(name, content);
    const getObj = async (name: string) => parse((await kubectl(env, ['get', 'ctb', name, '-o', 'yaml', '--show-managed-fields'])).stdout);

    it('creates, re-applies unchanged and changes a bundle, owned by the kubectl manager', async () => {
      const file = write('ssa.json', bundleYaml('ssa', caPem, { labels: { tier: 'one' } }));
      const created = await kubectl(env, ['apply', '--server-side', '-f', file]);
      expect(created.stderr).toBe('');
      expect(created.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/ssa serverside-applied');
      const first = await getObj('ssa');
      expect((first.metadata.managedFields as Entry[]).map((e) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
      expect(first.metadata.annotations).toBeUndefined();

      const again = await kubectl(env, ['apply', '--server-side', '-f', file]);
      expect(again.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/ssa serverside-applied');
      expect((await getObj('ssa')).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

      write('ssa.json', bundleYaml('ssa', caPem, { labels: { tier: 'two' } }));
      expect((await kubectl(env, ['apply', '--server-side', '-f', file])).code).toBe(0);
      expect((await getObj('ssa')).metadata.labels).toEqual({ tier: 'two' });
    });

    it('reports a conflict with a kubectl patch, then takes the field with --force-conflicts', async () => {
      const file = write('conflict.json', bundleYaml('conflict', caPem, { labels: { env: 'dev' } }));
      expect((await kubectl(env, ['apply', '--server-side', '-f', file])).code).toBe(0);
      const patched = await kubectl(env, ['patch', 'ctb', 'conflict', '--type=merge', '-p', '{"metadata":{"labels":{"env":"prod"}}}']);
      expect(patched.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/conflict patched');

      const refused = await kubectl(env, ['apply', '--server-side', '-f', file]);
      expect(refused.code).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      // Across versions: the patch of `ctb` went to the preferred v1, the apply to the manifest's v1alpha1.
      expect(lines[0]).toBe(
        'error: Apply failed with 1 conflict: conflict with "kubectl-patch" using certificates.plat.io/v1: .metadata.labels.env',
      );
      expect(refused.stderr).toContain('--force-conflicts');
      expect((await getObj('conflict')).metadata.labels).toEqual({ env: 'prod' });

      const forced = await kubectl(env, ['apply', '--server-side', '--force-conflicts', '-f', file]);
      expect(forced.stderr).toBe('');
      expect(forced.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/conflict serverside-applied');
      const obj = await getObj('conflict');
      expect(obj.metadata.labels).toEqual({ env: 'dev' });
      const entries = obj.metadata.managedFields as Entry[];
      expect(entries.map((e) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
    });

    it('records --field-manager and names it in another manager\'s conflict', async () => {
      const file = write('fm.json', bundleYaml('fm', caPem));
      const r = await kubectl(env, ['apply', '--server-side', '--field-manager=pki-operator', '-f', file]);
      expect(r.code).toBe(0);
      const entries = (await getObj('fm')).metadata.managedFields as Entry[];
      expect(entries).toEqual([
        expect.objectContaining({ manager: 'pki-operator', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:trustBundle': {} } } }),
      ]);
      const changed = write('fm2.json', bundleYaml('fm', ca2Pem));
      const refused = await kubectl(env, ['apply', '--server-side', '-f', changed]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "pki-operator": .spec.trustBundle');
    });

    it('moves a client-side applied bundle to server-side apply without conflicts, as kubectl migrates', async () => {
      const file = write('csa.json', bundleYaml('csa', caPem, { labels: { tier: 'one' } }));
      expect((await kubectl(env, ['apply', '-f', file])).stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/csa created');
      const before = await getObj('csa');
      expect((before.metadata.managedFields as Entry[]).map((e) => [e.manager, e.operation])).toEqual([['kubectl-client-side-apply', 'Update']]);

      write('csa.json', bundleYaml('csa', caPem, { labels: { tier: 'two' } }));
      const r = await kubectl(env, ['apply', '--server-side', '-f', file]);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/csa serverside-applied');
      const obj = await getObj('csa');
      expect(obj.metadata.labels).toEqual({ tier: 'two' });
      const entries = obj.metadata.managedFields as Entry[];
      // kubectl then upgrades the client-side entries (a JSON patch of managedFields, csaupgrade):
      // its Update entry becomes Apply entries, as against kube-apiserver.
      expect(entries.map((e) => ({ manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1 }))).toEqual([
        {
          manager: 'kubectl-last-applied',
          operation: 'Apply',
          fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } },
        },
        { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:tier': {} } }, 'f:spec': { 'f:trustBundle': {} } } },
      ]);
      // The last-applied annotation follows the configuration kubectl applied.
      expect(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"tier":"two"');
    });

    it('runs --dry-run=server without storing, and shows the field error of an invalid bundle', async () => {
      const file = write('dry.json', bundleYaml('dry', caPem));
      const dry = await kubectl(env, ['apply', '--server-side', '--dry-run=server', '-f', file]);
      expect(dry.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/dry serverside-applied (server dry run)');
      const missing = await kubectl(env, ['get', 'ctb', 'dry']);
      expect(missing.stderr.trim()).toBe('Error from server (NotFound): clustertrustbundles.certificates.plat.io "dry" not found');

      const bad = write('bad.json', bundleYaml('bad', 'not a certificate'));
      const r = await kubectl(env, ['apply', '--server-side', '-f', bad]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'The ClusterTrustBundle "bad" is invalid: spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided',
      );
      expect((await kubectl(env, ['get', 'ctb', 'bad'])).code).toBe(1);
    });
  });
}
