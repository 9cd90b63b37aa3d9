import fs from 'node:fs';
import path from 'node:path';
import { startServer, startWebhook, tempDir, webhookAuthorizationConfig, type TestServer } from './auth-fixtures.js';
import { hasKubectl, kubectl } from './kubectl.js';

// `kubectl auth whoami` and `kubectl auth can-i` (the real kubectl 1.32) against the server, with
// a webhook authorizer deciding for token users (clientctl's auth commands are tested in
// apps/clientctl/src/server.test.ts).

(hasKubectl ? describe : describe.skip)('kubectl auth against the server', () => {
  let dir: string;
  let s: TestServer;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let admin: { kubeconfig: string; home: string };
  let writer: { kubeconfig: string; home: string };

  beforeAll(async () => {
    dir = tempDir('plat-kubectl-auth-');
    webhook = await startWebhook(dir, (spec) => {
      const a = (spec.resourceAttributes ?? {}) as Record<string, string>;
      if (!((spec.groups ?? []) as string[]).includes('writers')) return { allowed: false };
      if (a.verb === 'create' && a.resource === 'clustertrustbundles') return { allowed: true };
      if (a.verb === 'attest' && a.resource === 'signers' && a.name === 'example.com/one') return { allowed: true };
      if (a.verb === 'delete') return { allowed: false, denied: true, reason: 'deleting is reserved' };
      return { allowed: false };
    });
    const authz = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authz, webhookAuthorizationConfig(webhook.configFile));
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,w-1,"writers"\n');
    s = await startServer(path.join(dir, 'data'), [`--authorization-config=${authz}`, `--token-auth-file=${tokens}`]);
    admin = { kubeconfig: s.running.adminKubeconfig!, home: tempDir('plat-kubectl-home-') };
    const writerConfig = path.join(dir, 'writer.conf');
    fs.writeFileSync(
      writerConfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: plat',
        `  cluster: {server: "${s.url}", certificate-authority-data: ${Buffer.from(s.running.devPki!.ca.certPem).toString('base64')}}`,
        'users:',
        '- name: writer',
        '  user: {token: writer-token}',
        'contexts:',
        '- name: writer',
        '  context: {cluster: plat, user: writer}',
        'current-context: writer',
        '',
      ].join('\n'),
    );
    writer = { kubeconfig: writerConfig, home: tempDir('plat-kubectl-home-') };
  });
  afterAll(async () => {
    await s?.stop();
    await webhook?.close();
    for (const d of [dir, admin?.home, writer?.home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('auth whoami shows the caller (client certificate and token users)', async () => {
    const a = await kubectl(admin, ['auth', 'whoami']);
    expect(a.stderr).toBe('');
    expect(a.stdout).toMatch(/ATTRIBUTE\s+VALUE\nUsername\s+plat-admin\nGroups\s+\[system:masters system:authenticated\]\n/);
    const w = await kubectl(writer, ['auth', 'whoami', '-o', 'json']);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.stdout)).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'writer', uid: 'w-1', groups: ['writers', 'system:authenticated'] } },
    });
  });

  it('auth can-i answers yes/no from the chain, including the webhook and non-resource URLs', async () => {
    const yes = await kubectl(writer, ['auth', 'can-i', 'create', 'clustertrustbundles']);
    expect([yes.code, yes.stdout]).toEqual([0, 'yes\n']);
    // kubectl resolved the resource through discovery: the webhook saw its group (and kubectl's
    // namespace, which it sends for every resource).
    const review = webhook.calls.at(-1)!.spec.resourceAttributes as Record<string, string>;
    expect(review).toMatchObject({ verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' });
    const no = await kubectl(writer, ['auth', 'can-i', 'delete', 'clustertrustbundles']);
    expect(no.code).toBe(1);
    expect(no.stdout).toBe('no - deleting is reserved\n');
    const named = await kubectl(writer, ['auth', 'can-i', 'get', 'clustertrustbundles/example.com:one:x']);
    expect(named.stdout).toBe('yes\n');
    const version = await kubectl(writer, ['auth', 'can-i', 'get', '/version']);
    expect(version.stdout).toBe('yes\n');
    // Impersonation by the admin: the question is asked as the impersonated user.
    const as = await kubectl(admin, ['auth', 'can-i', 'create', 'clustertrustbundles', '--as=someone', '--as-group=writers']);
    expect(as.stdout).toBe('yes\n');
    const asReader = await kubectl(admin, ['auth', 'can-i', 'create', 'clustertrustbundles', '--as=someone']);
    expect(asReader.stdout).toBe('no\n');
  });

  it('creates review manifests with the Kubernetes apiVersion (kubectl create -f), found through discovery', async () => {
    const ssar = JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
    });
    // For a kind without PATCH (the reviews) kubectl's validation reads the OpenAPI v2 document
    // in protobuf and then lists CRDs, which plat does not serve: hence --validate=false (see
    // docs/authentication-authorization.md and kubectl.test.ts).
    const create = ['create', '--validate=false', '-f', '-'];
    const yaml = await kubectl(writer, [...create, '-o', 'yaml'], ssar);
    expect([yaml.code, yaml.stderr]).toEqual([0, '']);
    expect(yaml.stdout).toBe(
      [
        'apiVersion: authorization.k8s.io/v1',
        'kind: SelfSubjectAccessReview',
        'metadata:',
        '  creationTimestamp: null',
        'spec:',
        '  resourceAttributes:',
        '    group: certificates.plat.io',
        '    resource: clustertrustbundles',
        '    verb: create',
        'status:',
        '  allowed: true',
        '',
      ].join('\n'),
    );
    expect((await kubectl(writer, create, ssar)).stdout).toBe('selfsubjectaccessreview.authorization.k8s.io/<unknown> created\n');
    const sar = JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'someone', groups: ['writers'], resourceAttributes: { verb: 'delete', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
    });
    const json = await kubectl(admin, [...create, '-o', 'json'], sar);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      status: { allowed: false, denied: true, reason: 'deleting is reserved' },
    });
    const forbidden = await kubectl(writer, create, sar);
    expect(forbidden.stderr).toContain('subjectaccessreviews.authorization.plat.io is forbidden: User "writer" cannot create resource "subjectaccessreviews"');
    // Both groups are listed; a bare resource name still resolves to the plat group, as before.
    const resources = await kubectl(admin, ['api-resources', '--api-group=authorization.k8s.io', '-o', 'wide']);
    expect(resources.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/))).toEqual([
      ['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview', 'create'],
      ['selfsubjectrulesreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectRulesReview', 'create'],
      ['subjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SubjectAccessReview', 'create'],
    ]);
    const canI = await kubectl(admin, ['auth', 'can-i', 'create', 'selfsubjectaccessreviews', '-n', 'x']);
    expect(canI.stderr).toContain("resource 'selfsubjectaccessreviews' is not namespace scoped in group 'authorization.plat.io'");
    // kubectl explain reads the group's OpenAPI v3 document.
    const explain = await kubectl(admin, ['explain', 'selfsubjectaccessreviews.authorization.k8s.io.spec.resourceAttributes.verb']);
    expect(explain.stdout).toMatch(/^GROUP:\s+authorization.k8s.io\nKIND:\s+SelfSubjectAccessReview\nVERSION:\s+v1\n\nFIELD: verb <string>\n/);
    const explainPlat = await kubectl(admin, ['explain', 'selfsubjectaccessreviews']);
    expect(explainPlat.stdout).toMatch(/^GROUP:\s+authorization.plat.io\nKIND:\s+SelfSubjectAccessReview\n/);
  });
});
