// ClusterTrustBundle in every version, end to end against the bundled apiserver: created as
// certificates.plat.io/v1alpha1 (what every manifest written for earlier plat says), read as
// certificates.k8s.io/v1 by kubectl, @kubernetes/client-node (typed CertificatesV1beta1Api too) and the
// Python client's DynamicClient, and watched as certificates.k8s.io/v1beta1.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createCertificateAuthority } from '@plat/x509';
import { loadClientNode } from './client-node-module.js';
import { bundleYaml, hasKubectl, kubectl, kubectlSuite, waitFor, type KubectlSuite } from './kubectl.js';

const { k8s, loadError } = await loadClientNode();

const python = '/usr/bin/python3';
/** Why the Python client cannot run here ('' when it can). */
function pythonUnavailable(): string {
  if (!fs.existsSync(python)) return `${python} is not installed`;
  const probe = spawnSync(python, ['-c', 'import kubernetes'], { encoding: 'utf8', timeout: 30000 });
  return probe.status === 0 ? '' : `${python} cannot import kubernetes (install python3-kubernetes)`;
}

const missing = [!hasKubectl && 'kubectl at /usr/bin/kubectl', !k8s && `@kubernetes/client-node (${loadError})`].filter(Boolean);
if (missing.length) {
  console.warn(`ClusterTrustBundle versions end-to-end tests skipped: they need ${missing.join(' and ')}`);
  describe('ClusterTrustBundle versions end-to-end', () => {
    it.skip(`needs ${missing.join(' and ')}`, () => undefined);
  });
} else {
  const lib = k8s!;
  describe('ClusterTrustBundle versions end-to-end against the started apiserver', () => {
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };
    let pem: string;
    const name = 'example.com:versions:alpha';

    beforeAll(async () => {
      suite = kubectlSuite('plat-versions');
      env = await suite.start();
      pem = (await createCertificateAuthority({ commonName: 'versions-root' })).certPem;
      const created = await kubectl(env, ['create', '-f', suite.write('alpha.json', bundleYaml(name, pem, { signerName: 'example.com/versions' }))]);
      expect(created.stderr).toBe('');
      expect(created.stdout).toBe(`clustertrustbundle.certificates.plat.io/${name} created\n`);
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    it('kubectl reads it as certificates.k8s.io/v1, as v1alpha1 by its full name, and a bare name in the plat group\'s preferred version v1', async () => {
      const k8sV1 = await kubectl(env, ['get', 'clustertrustbundles.v1.certificates.k8s.io', name, '-o', 'json']);
      expect(k8sV1.stderr).toBe('');
      expect(JSON.parse(k8sV1.stdout)).toMatchObject({ apiVersion: 'certificates.k8s.io/v1', kind: 'ClusterTrustBundle', spec: { signerName: 'example.com/versions', trustBundle: pem } });
      const alpha = await kubectl(env, ['get', 'clustertrustbundles.v1alpha1.certificates.plat.io', name, '-o', 'json']);
      expect(JSON.parse(alpha.stdout).apiVersion).toBe('certificates.plat.io/v1alpha1');
      // Two groups serve clustertrustbundles: kubectl's RESTMapper (restmapper.NewDiscoveryRESTMapper,
      // k8s.io/client-go) prefers the group discovery lists first, in its preferred version; plat
      // lists certificates.plat.io before certificates.k8s.io.
      for (const resource of ['clustertrustbundles', 'clustertrustbundle', 'ctb']) {
        const bare = await kubectl(env, ['get', resource, name, '-o', 'json']);
        expect(bare.stderr).toBe('');
        expect(JSON.parse(bare.stdout).apiVersion).toBe('certificates.plat.io/v1');
      }
      const table = await kubectl(env, ['get', 'clustertrustbundles.v1beta1.certificates.k8s.io', '--field-selector', 'spec.signerName=example.com/versions']);
      expect(table.stdout).toMatch(new RegExp(`^NAME\\s+SIGNERNAME\\s+AGE\\n${name.replaceAll('.', '\\.')}\\s+example\\.com/versions\\s+\\d+s\\n$`));
      const resources = await kubectl(env, ['api-resources', '--api-group=certificates.k8s.io', '--no-headers']);
      expect(resources.stdout).toMatch(/^clustertrustbundles\s+certificates\.k8s\.io\/v1\s+false\s+ClusterTrustBundle\n$/);
      const versions = await kubectl(env, ['api-versions']);
      expect(versions.stdout.split('\n').filter((v) => v.startsWith('certificates.'))).toEqual([
        'certificates.k8s.io/v1',
        'certificates.k8s.io/v1beta1',
        'certificates.plat.io/v1',
        'certificates.plat.io/v1alpha1',
        'certificates.plat.io/v1beta1',
      ]);
    });

    it('@kubernetes/client-node reads it as certificates.k8s.io/v1 (KubernetesObjectApi; 1.4 has no typed v1 ClusterTrustBundle), lists it with the typed CertificatesV1beta1Api and watches it in v1beta1', async () => {
      const kc = new lib.KubeConfig();
      kc.loadFromFile(env.kubeconfig);
      const v1 = kc.makeApiClient(lib.CertificatesV1Api) as unknown as { readClusterTrustBundle?: (p: { name: string }) => Promise<{ apiVersion?: string; spec: { trustBundle: string } }> };
      const objects = lib.KubernetesObjectApi.makeApiClient(kc);
      // The typed v1 API exists only in client-node releases generated from Kubernetes 1.35+.
      const read = v1.readClusterTrustBundle
        ? await v1.readClusterTrustBundle({ name })
        : ((await objects.read({ apiVersion: 'certificates.k8s.io/v1', kind: 'ClusterTrustBundle', metadata: { name } })) as { apiVersion?: string; spec: { trustBundle: string } });
      expect(read.apiVersion).toBe('certificates.k8s.io/v1');
      expect(read.spec.trustBundle).toBe(pem);
      const beta = kc.makeApiClient(lib.CertificatesV1beta1Api);
      const typed = await beta.readClusterTrustBundle({ name });
      expect([typed.apiVersion, typed.spec.signerName]).toEqual(['certificates.k8s.io/v1beta1', 'example.com/versions']);
      const listed = await beta.listClusterTrustBundle({ fieldSelector: 'spec.signerName=example.com/versions' });
      expect(listed.items.map((i) => i.metadata?.name)).toEqual([name]);

      const events: string[] = [];
      const watch = new lib.Watch(kc);
      const req = await watch.watch(
        '/apis/certificates.k8s.io/v1beta1/clustertrustbundles',
        { resourceVersion: listed.metadata!.resourceVersion!, fieldSelector: `metadata.name=${name}` },
        (type, obj: { apiVersion: string; metadata: { labels?: Record<string, string> } }) => events.push(`${type} ${obj.apiVersion} ${obj.metadata.labels?.['watched'] ?? ''}`),
        () => undefined,
      );
      // Written in v1alpha1, seen in v1beta1.
      const labeled = await kubectl(env, ['label', 'clustertrustbundles.v1alpha1.certificates.plat.io', name, 'watched=yes']);
      expect(labeled.stderr).toBe('');
      await waitFor(() => events.length > 0, 15_000, 'the v1beta1 watch to see the change');
      req.abort();
      expect(events).toEqual(['MODIFIED certificates.k8s.io/v1beta1 yes']);
    });

    const pythonReason = pythonUnavailable();
    (pythonReason ? it.skip : it)(`the Python client's DynamicClient reads it as certificates.k8s.io/v1${pythonReason ? ` (skipped: ${pythonReason})` : ''}`, async () => {
      const script = [
        'import json, sys',
        'from kubernetes import config, dynamic',
        'api = dynamic.DynamicClient(config.new_client_from_config(sys.argv[1]))',
        "ctb = api.resources.get(api_version='certificates.k8s.io/v1', kind='ClusterTrustBundle')",
        'got = ctb.get(name=sys.argv[2]).to_dict()',
        "beta = api.resources.get(api_version='certificates.k8s.io/v1beta1', kind='ClusterTrustBundle')",
        "listed = beta.get(field_selector='spec.signerName=example.com/versions').to_dict()",
        "print(json.dumps({'apiVersion': got['apiVersion'], 'trustBundle': got['spec']['trustBundle'], 'listed': [listed['apiVersion'], [i['metadata']['name'] for i in listed['items']]]}))",
      ].join('\n');
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(python, ['-c', script, env.kubeconfig, name], { env: { PATH: process.env.PATH ?? '/usr/bin', HOME: env.home }, timeout: 60000 }, (err, out, errOut) =>
          err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
        );
      });
      expect(JSON.parse(stdout)).toEqual({ apiVersion: 'certificates.k8s.io/v1', trustBundle: pem, listed: ['certificates.k8s.io/v1beta1', [name]] });
    });
  });
}
