import fs from 'node:fs';
import { parse } from 'yaml';
import { createCertificateAuthority, issueServingCertificate } from '@plat/x509';
import { bundleYaml, hasKubectl, kubectl, kubectlStream, kubectlSuite, waitFor, type KubectlSuite } from './kubectl.js';

if (!hasKubectl) {
  describe('kubectl end-to-end', () => {
    it.skip('needs the real kubectl at /usr/bin/kubectl, which is not installed here: skipped', () => undefined);
  });
} else {
  describe('kubectl end-to-end against the started apiserver', () => {
    let suite: KubectlSuite;
    let env: { kubeconfig: string; home: string };
    let caPem: string;
    let ca2Pem: string;

    beforeAll(async () => {
      suite = kubectlSuite('plat-e2e');
      const tokens = suite.write('tokens.csv', 'reader-token,reader,uid-r,"readers"\n');
      env = await suite.start([`--token-auth-file=${tokens}`]);
      caPem = (await createCertificateAuthority({ commonName: 'e2e-root-1' })).certPem;
      ca2Pem = (await createCertificateAuthority({ commonName: 'e2e-root-2' })).certPem;
    });

    afterAll(async () => {
      expect(await suite?.stop()).toBe(0);
    });

    const write = (name: string, content: string) => suite.write(name, content);

    it('lists the resource in api-resources with its short name', async () => {
      const r = await kubectl(env, ['api-resources', '--api-group=certificates.plat.io']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const row = r.stdout.split('\n').find((l) => l.startsWith('clustertrustbundles'));
      // The preferred version (v1) of the group.
      expect(row?.split(/\s+/)).toEqual(['clustertrustbundles', 'ctb', 'certificates.plat.io/v1', 'false', 'ClusterTrustBundle']);
    });

    it('creates from a file, then gets it as a table and as YAML', async () => {
      const file = write('first.json', bundleYaml('first', caPem));
      const created = await kubectl(env, ['create', '-f', file]);
      expect(created.stderr).toBe('');
      expect(created.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/first created');

      const table = await kubectl(env, ['get', 'clustertrustbundles']);
      expect(table.code).toBe(0);
      const [header, ...rows] = table.stdout.trim().split('\n');
      expect(header.split(/\s+/)).toEqual(['NAME', 'SIGNERNAME', 'AGE']);
      expect(rows.some((r) => r.split(/\s+/)[0] === 'first' && r.split(/\s+/)[1] === '<none>')).toBe(true);

      const y = await kubectl(env, ['get', 'ctb', 'first', '-o', 'yaml']);
      expect(y.code).toBe(0);
      const obj = parse(y.stdout);
      // Created from a v1alpha1 manifest, read by kubectl in the preferred version.
      expect(obj).toMatchObject({ apiVersion: 'certificates.plat.io/v1', kind: 'ClusterTrustBundle', metadata: { name: 'first' } });
      expect(obj.spec.trustBundle.trim()).toBe(caPem.trim());
      expect(Number(obj.metadata.resourceVersion)).toBeGreaterThan(0);
      expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(obj.metadata.creationTimestamp).toMatch(/Z$/);
    });

    it('applies client-side: creates, configures, then reports unchanged', async () => {
      const file = write('applied.json', bundleYaml('applied', caPem, { labels: { tier: 'one' } }));
      expect((await kubectl(env, ['apply', '-f', file])).stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/applied created');
      write('applied.json', bundleYaml('applied', caPem, { labels: { tier: 'two' } }));
      expect((await kubectl(env, ['apply', '-f', file])).stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/applied configured');
      expect((await kubectl(env, ['apply', '-f', file])).stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/applied unchanged');
      const obj = parse((await kubectl(env, ['get', 'ctb', 'applied', '-o', 'yaml'])).stdout);
      expect(obj.metadata.labels).toEqual({ tier: 'two' });
      expect(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"tier":"two"');
    });

    it('patches with a merge patch and with a JSON patch', async () => {
      const merge = await kubectl(env, ['patch', 'ctb', 'first', '--type=merge', '-p', '{"metadata":{"labels":{"env":"dev"}}}']);
      expect(merge.stderr).toBe('');
      expect(merge.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/first patched');
      const json = await kubectl(env, ['patch', 'ctb', 'first', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/team","value":"pki"}]']);
      expect(json.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/first patched');
      const obj = parse((await kubectl(env, ['get', 'ctb', 'first', '-o', 'yaml'])).stdout);
      expect(obj.metadata.labels).toEqual({ env: 'dev', team: 'pki' });
      const noop = await kubectl(env, ['patch', 'ctb', 'first', '--type=merge', '-p', '{"metadata":{"labels":{"env":"dev"}}}']);
      expect(noop.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/first patched (no change)');
    });

    it('filters by signer with --field-selector spec.signerName=...', async () => {
      const file = write('signed.json', bundleYaml('example.com:signer:one', ca2Pem, { signerName: 'example.com/signer' }));
      expect((await kubectl(env, ['create', '-f', file])).code).toBe(0);
      const r = await kubectl(env, ['get', 'ctb', '--field-selector', 'spec.signerName=example.com/signer', '-o', 'name']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().split('\n')).toEqual(['clustertrustbundle.certificates.plat.io/example.com:signer:one']);
      const none = await kubectl(env, ['get', 'ctb', '--field-selector', 'spec.signerName=other.com/x']);
      expect(none.stderr.trim()).toBe('No resources found');
      const bad = await kubectl(env, ['get', 'ctb', '--field-selector', 'spec.trustBundle=x']);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('field label not supported: spec.trustBundle');
    });

    it('runs create --dry-run=server without storing the object', async () => {
      const file = write('dry.json', bundleYaml('dry', caPem));
      const r = await kubectl(env, ['create', '-f', file, '--dry-run=server']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/dry created (server dry run)');
      const get = await kubectl(env, ['get', 'ctb', 'dry']);
      expect(get.code).toBe(1);
      expect(get.stderr.trim()).toBe('Error from server (NotFound): clustertrustbundles.certificates.plat.io "dry" not found');
    });

    it('shows the field error of a rejected bundle', async () => {
      const leafCA = await createCertificateAuthority({ commonName: 'tmp' });
      const leaf = (await issueServingCertificate(leafCA, { commonName: 'not-a-ca', dnsNames: ['x'] })).certPem;
      const file = write('bad.json', bundleYaml('bad', leaf));
      const r = await kubectl(env, ['create', '-f', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^The ClusterTrustBundle "bad" is invalid: spec\.trustBundle: Invalid value: /);
      const nameRule = write('badname.json', bundleYaml('wrong-prefix', caPem, { signerName: 'example.com/signer' }));
      const r2 = await kubectl(env, ['create', '-f', nameRule]);
      expect(r2.code).toBe(1);
      expect(r2.stderr).toMatch(/^The ClusterTrustBundle "wrong-prefix" is invalid: metadata\.name: Invalid value: "wrong-prefix"/);
    });

    it('rejects unknown fields as kubectl validates them through OpenAPI', async () => {
      const file = write('unknown.json', JSON.stringify({ ...JSON.parse(bundleYaml('unknown', caPem)), spec: { trustBundle: caPem, bogus: 1 } }));
      const r = await kubectl(env, ['create', '-f', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('unknown field "spec.bogus"');
    });

    it('reads the OpenAPI v2 document in protobuf: explain --output=plaintext-openapiv2 renders its fields', async () => {
      const r = await kubectl(env, ['explain', '--output=plaintext-openapiv2', 'clustertrustbundles.spec']);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(/^KIND: {5}ClusterTrustBundle\nVERSION: {2}certificates\.plat\.io\/v1\n/);
      expect(r.stdout).toContain('   trustBundle\t<string> -required-\n');
      expect(r.stdout).toContain('   signerName\t<string>\n');
      const review = await kubectl(env, ['explain', '--output=plaintext-openapiv2', 'selfsubjectaccessreviews.authorization.k8s.io.spec']);
      expect(review.code).toBe(0);
      expect(review.stdout).toContain('   resourceAttributes\t<Object>\n');
    });

    it('creates a review from a manifest with client-side validation on (every OpenAPI fetch answered, CRDs listed)', async () => {
      const ssar = JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
      });
      const r = await kubectl(env, ['create', '-f', '-', '-v=8'], ssar);
      const lines = r.stderr.split('\n');
      const fetches: Array<[string, string]> = [];
      lines.forEach((line, i) => {
        const get = / GET (https:\/\/\S+)/.exec(line);
        if (!get || !get[1]!.includes('/openapi/')) return;
        const status = lines.slice(i + 1).find((l) => l.includes('Response Status:'));
        fetches.push([new URL(get[1]!).pathname, /Response Status: (\d+)/.exec(status ?? '')?.[1] ?? 'none']);
      });
      // OpenAPI v3 first, then (no PATCH of this kind there) v2 in kubectl's protobuf form.
      expect(fetches.map(([p]) => p)).toEqual(['/openapi/v3', '/openapi/v3/apis/authorization.k8s.io/v1', '/openapi/v2']);
      expect(fetches.every(([, status]) => status === '200' || status === '304')).toBe(true);
      expect(r.stderr).toContain('Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
      // kubectl's next step lists CRDs (cli-runtime query_param_verifier.go, HasSupport →
      // hasGVKInCRDs), as against kube-apiserver; the review is no CRD, so kubectl validates it
      // client-side and creates it.
      expect(r.stderr).toMatch(/GET https:\/\/\S+\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions/);
      expect(r.stderr).not.toContain('failed to check CRD');
      expect(r.code).toBe(0);
      const plain = await kubectl(env, ['create', '-f', '-', '-o', 'json'], ssar);
      expect([plain.code, plain.stderr]).toEqual([0, '']);
      expect(JSON.parse(plain.stdout)).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    });

    it('receives a watch event with get -w', async () => {
      const watch = kubectlStream(env, ['get', 'ctb', '-w', '--output-watch-events']);
      try {
        await waitFor(() => /\bfirst\b/.test(watch.output()), 15000, 'the initial list of the watch');
        const file = write('watched.json', bundleYaml('watched', caPem));
        expect((await kubectl(env, ['create', '-f', file])).code).toBe(0);
        await waitFor(() => /ADDED\s+watched\b/.test(watch.output()), 15000, 'the ADDED event of "watched"');
        expect((await kubectl(env, ['delete', 'ctb', 'watched'])).code).toBe(0);
        await waitFor(() => /DELETED\s+watched\b/.test(watch.output()), 15000, 'the DELETED event of "watched"');
      } finally {
        watch.child.kill('SIGTERM');
      }
    });

    it('deletes', async () => {
      const r = await kubectl(env, ['delete', 'ctb', 'applied']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io "applied" deleted');
      const again = await kubectl(env, ['delete', 'ctb', 'applied']);
      expect(again.stderr.trim()).toBe('Error from server (NotFound): clustertrustbundles.certificates.plat.io "applied" not found');
    });

    /** A kubeconfig with the same cluster and a bearer token as the only credential. */
    function tokenKubeconfig(token: string): string {
      const conf = parse(fs.readFileSync(env.kubeconfig, 'utf8'));
      conf.users = [{ name: 'token-user', user: { token } }];
      conf.contexts = [{ name: 'token', context: { cluster: conf.clusters[0].name, user: 'token-user' } }];
      conf['current-context'] = 'token';
      return write(`kubeconfig-${token}.json`, JSON.stringify(conf));
    }

    it('lets a token user read bundles but not create them', async () => {
      const reader = { ...env, kubeconfig: tokenKubeconfig('reader-token') };
      const list = await kubectl(reader, ['get', 'ctb', '-o', 'name']);
      expect(list.stderr).toBe('');
      expect(list.stdout).toContain('clustertrustbundle.certificates.plat.io/first');
      const file = write('denied.json', bundleYaml('denied', caPem));
      const create = await kubectl(reader, ['create', '-f', file]);
      expect(create.code).toBe(1);
      expect(create.stderr.trim()).toBe(
        'Error from server (Forbidden): error when creating "' +
          file +
          '": clustertrustbundles.certificates.plat.io is forbidden: User "reader" cannot create resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
      );
      const badToken = await kubectl({ ...env, kubeconfig: tokenKubeconfig('wrong') }, ['get', 'ctb']);
      expect(badToken.code).toBe(1);
      expect(badToken.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    });

    it('lets the admin impersonate the reader, who is then forbidden to write', async () => {
      const r = await kubectl(env, ['--as', 'reader', 'delete', 'ctb', 'first']);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'Error from server (Forbidden): clustertrustbundles.certificates.plat.io "first" is forbidden: User "reader" cannot delete resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
      );
      const read = await kubectl(env, ['--as', 'system:serviceaccount:ns:app', 'get', 'ctb', 'first', '-o', 'name']);
      expect(read.stdout.trim()).toBe('clustertrustbundle.certificates.plat.io/first');
      // A user without the impersonate verb cannot act as anybody else.
      const reader = { ...env, kubeconfig: tokenKubeconfig('reader-token') };
      const escalate = await kubectl(reader, ['--as', 'plat-admin', '--as-group', 'system:masters', 'get', 'ctb']);
      expect(escalate.code).toBe(1);
      // kubectl also logs its failed discovery attempts before the error; the error is the last line.
      expect(escalate.stderr.trim().split('\n').pop()).toBe(
        'Error from server (Forbidden): users "plat-admin" is forbidden: User "reader" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
    });
  });
}
