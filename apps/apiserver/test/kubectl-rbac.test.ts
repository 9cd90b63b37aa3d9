import fs from 'node:fs';
import path from 'node:path';
import { createCertificateAuthority } from '@plat/x509';
import { eventually, startServer, tempDir, type TestServer } from './auth-fixtures.js';
import { bundleYaml, hasKubectl, kubectl, type KubectlResult } from './kubectl.js';

// RBAC end to end with the real kubectl 1.32 as the admin (system:masters, client certificate)
// and two token users: alice (group team-a) and bob (group team-b). The server runs with its
// defaults (--authorization-mode=RBAC over the bootstrap policy). The walk-through of
// docs/authentication-authorization.md, with clientctl, is apps/clientctl/src/rbac-walkthrough.process.test.ts.

type Env = { kubeconfig: string; home: string };

if (!hasKubectl) console.warn('kubectl RBAC end-to-end tests skipped: /usr/bin/kubectl is not installed');

(hasKubectl ? describe : describe.skip)('RBAC with kubectl as two token users', () => {
  let dir: string;
  let s: TestServer;
  let admin: Env;
  let alice: Env;
  let bob: Env;
  let caPem: string;

  const write = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };

  /** A kubeconfig for a token user, made with kubectl's own config commands. */
  async function tokenUser(name: string, token: string): Promise<Env> {
    const env = { kubeconfig: path.join(dir, `${name}.conf`), home: tempDir('plat-kubectl-home-') };
    const ca = write('ca.crt', s.running.devPki!.ca.certPem);
    for (const args of [
      ['config', 'set-cluster', 'plat', '--server', s.url, '--certificate-authority', ca, '--embed-certs'],
      ['config', 'set-credentials', name, '--token', token],
      ['config', 'set-context', name, '--cluster', 'plat', '--user', name],
      ['config', 'use-context', name],
    ]) {
      const r = await kubectl(env, args);
      expect(r.stderr).toBe('');
    }
    return env;
  }

  /** kubectl that must succeed; answers stdout. */
  async function ok(env: Env, args: string[]): Promise<string> {
    const r = await kubectl(env, args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  }

  /** The last line of a failed kubectl's stderr (kubectl logs warnings before the error). */
  const lastError = (r: KubectlResult) => r.stderr.trim().split('\n').pop();

  /** `kubectl auth can-i` once the authorizer has seen the latest RBAC change (a watch, as in Kubernetes). */
  async function canI(env: Env, args: string[], expected: 'yes' | 'no'): Promise<void> {
    await eventually(async () => (await kubectl(env, ['auth', 'can-i', ...args])).stdout.trim().startsWith(expected));
  }

  /**
   * Whether a token user may attest for a signer, once the authorizer has seen the latest change.
   * (`kubectl auth can-i attest signers.certificates.plat.io/NAME` cannot ask it: signers are not in
   * discovery, so kubectl sends the whole argument as the resource, in Kubernetes too.)
   */
  async function canAttest(token: string, signer: string, expected: boolean): Promise<void> {
    await eventually(async () => {
      const r = await s.req({ token }, 'POST', '/apis/authorization.plat.io/v1/selfsubjectaccessreviews', {
        spec: { resourceAttributes: { verb: 'attest', group: 'certificates.plat.io', resource: 'signers', name: signer } },
      });
      return (r.json.status as { allowed?: boolean } | undefined)?.allowed === expected;
    });
  }

  beforeAll(async () => {
    dir = tempDir('plat-kubectl-rbac-');
    const tokens = write('tokens.csv', 'alice-token,alice,u-alice,"team-a"\nbob-token,bob,u-bob,"team-b"\n');
    s = await startServer(path.join(dir, 'data'), [`--token-auth-file=${tokens}`]);
    admin = { kubeconfig: s.running.adminKubeconfig!, home: tempDir('plat-kubectl-home-') };
    alice = await tokenUser('alice', 'alice-token');
    bob = await tokenUser('bob', 'bob-token');
    caPem = (await createCertificateAuthority({ commonName: 'rbac-e2e' })).certPem;
  });
  afterAll(async () => {
    await s?.stop();
    for (const d of [dir, admin?.home, alice?.home, bob?.home]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('lists the bootstrap roles and bindings with kubectl get -o wide', async () => {
    const roles = await ok(admin, ['get', 'clusterroles', '-o', 'wide']);
    expect(roles.split('\n')[0]).toMatch(/^NAME\s+CREATED AT$/);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:clustertrustbundles-reader']) {
      expect(roles).toMatch(new RegExp(`^${name}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`, 'm'));
    }
    const bindings = await ok(admin, ['get', 'clusterrolebindings', '-o', 'wide']);
    expect(bindings.split('\n')[0]).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    expect(bindings).toMatch(/^cluster-admin\s+ClusterRole\/cluster-admin\s+\S+\s+system:masters\s*$/m);
    // Both group names serve the same objects.
    const viaK8s = JSON.parse(await ok(admin, ['get', 'clusterroles.rbac.authorization.k8s.io', 'view', '-o', 'json']));
    const viaPlat = JSON.parse(await ok(admin, ['get', 'clusterroles.rbac.authorization.plat.io', 'view', '-o', 'json']));
    expect(viaK8s.apiVersion).toBe('rbac.authorization.k8s.io/v1');
    expect(viaPlat.apiVersion).toBe('rbac.authorization.plat.io/v1');
    expect(viaK8s.metadata.uid).toBe(viaPlat.metadata.uid);
  });

  it('gives token users only what bindings give them; a signer role lets one team publish for its signer', async () => {
    // Everybody authenticated reads bundles (bootstrap policy), nobody but the admin writes yet.
    expect((await kubectl(alice, ['get', 'ctb'])).code).toBe(0);
    const denied = await kubectl(alice, ['create', '-f', write('early.json', bundleYaml('example.com:foo:early', caPem, { signerName: 'example.com/foo' }))]);
    expect(lastError(denied)).toContain('clustertrustbundles.certificates.plat.io is forbidden: User "alice" cannot create resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope');

    // Writes for everybody in team-a and team-b; attest on example.com/* for team-a only.
    await ok(admin, ['create', 'clusterrole', 'bundle-writer', '--verb=create,update,patch', '--resource=clustertrustbundles.certificates.plat.io']);
    await ok(admin, ['create', 'clusterrolebinding', 'bundle-writer', '--clusterrole=bundle-writer', '--group=team-a', '--group=team-b']);
    const signerRole = write(
      'signer-role.yaml',
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata: {name: example-signer}',
        'rules:',
        '- {apiGroups: [certificates.plat.io], resources: [signers], resourceNames: ["example.com/*"], verbs: [attest]}',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRoleBinding',
        'metadata: {name: example-signer}',
        'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: example-signer}',
        'subjects:',
        '- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: team-a}',
        '',
      ].join('\n'),
    );
    const reconciled = await ok(admin, ['auth', 'reconcile', '-f', signerRole]);
    expect(reconciled).toContain('clusterrole.rbac.authorization.k8s.io/example-signer reconciled');
    expect(reconciled).toContain('clusterrolebinding.rbac.authorization.k8s.io/example-signer reconciled');
    // Reconciling again changes nothing.
    expect(await ok(admin, ['auth', 'reconcile', '-f', signerRole])).not.toContain('missing rules added');

    await canAttest('alice-token', 'example.com/*', true);
    await canAttest('bob-token', 'example.com/*', false);
    await canI(bob, ['create', 'clustertrustbundles'], 'yes');

    // alice: create, update (PUT) and server-side apply for example.com/foo.
    const bundle = write('foo.json', bundleYaml('example.com:foo:one', caPem, { signerName: 'example.com/foo' }));
    expect(await ok(alice, ['create', '-f', bundle])).toBe('clustertrustbundle.certificates.plat.io/example.com:foo:one created\n');
    const current = JSON.parse(await ok(alice, ['get', 'ctb', 'example.com:foo:one', '-o', 'json']));
    current.metadata.labels = { team: 'a' };
    expect(await ok(alice, ['replace', '-f', write('foo-replace.json', JSON.stringify(current))])).toBe('clustertrustbundle.certificates.plat.io/example.com:foo:one replaced\n');
    const applied = bundleYaml('example.com:foo:one', caPem, { signerName: 'example.com/foo', labels: { team: 'a', env: 'prod' } });
    expect(await ok(alice, ['apply', '--server-side', '-f', write('foo-apply.json', applied)])).toBe('clustertrustbundle.certificates.plat.io/example.com:foo:one serverside-applied\n');
    expect(JSON.parse(await ok(admin, ['get', 'ctb', 'example.com:foo:one', '-o', 'json'])).metadata.labels).toEqual({ team: 'a', env: 'prod' });

    // Another signer: no; bob (writes, but no attest): no, for every write.
    const other = await kubectl(alice, ['create', '-f', write('other.json', bundleYaml('other.com:foo:one', caPem, { signerName: 'other.com/foo' }))]);
    expect(lastError(other)).toContain('clustertrustbundles.certificates.plat.io "other.com:foo:one" is forbidden: user not permitted to attest for signerName "other.com/foo"');
    const bobCreate = await kubectl(bob, ['create', '-f', write('bob.json', bundleYaml('example.com:foo:bob', caPem, { signerName: 'example.com/foo' }))]);
    expect(lastError(bobCreate)).toContain('user not permitted to attest for signerName "example.com/foo"');
    const latest = JSON.parse(await ok(bob, ['get', 'ctb', 'example.com:foo:one', '-o', 'json']));
    latest.metadata.labels = { team: 'b' };
    const bobReplace = await kubectl(bob, ['replace', '-f', write('bob-replace.json', JSON.stringify(latest))]);
    expect(bobReplace.code).toBe(1);
    expect(lastError(bobReplace)).toContain('user not permitted to attest for signerName "example.com/foo"');
    const bobApply = await kubectl(bob, ['apply', '--server-side', '--force-conflicts', '-f', write('bob-apply.json', applied.replace('"prod"', '"dev"'))]);
    expect(lastError(bobApply)).toContain('user not permitted to attest for signerName "example.com/foo"');
    // A bundle without a signer needs no attest.
    expect(await ok(bob, ['create', '-f', write('plain.json', bundleYaml('bob-plain', caPem))])).toContain('created');
  });

  it('answers kubectl auth can-i --list from the bound rules', async () => {
    await canAttest('alice-token', 'example.com/*', true);
    const list = await ok(alice, ['auth', 'can-i', '--list']);
    expect(list.split('\n')[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    expect(list).toMatch(/^signers\.certificates\.plat\.io\s+\[\]\s+\[example\.com\/\*\]\s+\[attest\]$/m);
    expect(list).toMatch(/^clustertrustbundles\.certificates\.plat\.io\s+\[\]\s+\[\]\s+\[create update patch get list watch\]$/m);
    expect(list).toMatch(/^selfsubjectrulesreviews\.authorization\.plat\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
    const bobList = await ok(bob, ['auth', 'can-i', '--list']);
    expect(bobList).not.toContain('signers');
  });

  it('creates roles and bindings in a namespace with kubectl create role|rolebinding', async () => {
    await ok(admin, ['create', 'namespace', 'team-a']);
    expect(await ok(admin, ['create', 'role', 'bundle-reader', '-n', 'team-a', '--verb=get,list', '--resource=clustertrustbundles.certificates.plat.io'])).toBe(
      'role.rbac.authorization.k8s.io/bundle-reader created\n',
    );
    expect(await ok(admin, ['create', 'rolebinding', 'ci', '-n', 'team-a', '--role=bundle-reader', '--serviceaccount=team-a:ci'])).toBe(
      'rolebinding.rbac.authorization.k8s.io/ci created\n',
    );
    const bindings = await ok(admin, ['get', 'rolebindings', '-n', 'team-a', '-o', 'wide']);
    expect(bindings).toMatch(/^ci\s+Role\/bundle-reader\s+\S+\s+team-a\/ci\s*$/m);
    // The namespace must exist.
    const missing = await kubectl(admin, ['create', 'role', 'x', '-n', 'nowhere', '--verb=get', '--resource=clustertrustbundles.certificates.plat.io']);
    expect(lastError(missing)).toBe('Error from server (NotFound): namespaces "nowhere" not found');
  });

  it('unsticks a Terminating namespace with kubectl replace --raw .../finalize, allowed by update on namespaces/finalize', async () => {
    // The well-known recipe for a namespace held by a finalizer nobody removes: PUT the namespace
    // without it to the finalize subresource (Kubernetes' FinalizeREST).
    const manifest = write('stuck.json', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'stuck' }, spec: { finalizers: ['example.com/gone'] } }));
    await ok(admin, ['create', '-f', manifest]);
    await ok(admin, ['create', 'role', 'leftover', '-n', 'stuck', '--verb=get', '--resource=clustertrustbundles.certificates.plat.io']);
    expect(await ok(admin, ['delete', 'namespace', 'stuck', '--wait=false'])).toBe('namespace "stuck" deleted\n');
    // The namespace controller deletes the content and removes its own finalizer; the other one stays.
    const stuckNamespace = async () => JSON.parse(await ok(admin, ['get', 'namespace', 'stuck', '-o', 'json']));
    await eventually(async () => JSON.stringify((await stuckNamespace()).spec) === '{"finalizers":["example.com/gone"]}');
    expect((await kubectl(admin, ['get', 'roles', '-n', 'stuck', '-o', 'name'])).stdout).toBe('');
    const stuck = await stuckNamespace();
    expect(stuck.status.phase).toBe('Terminating');

    const body = write('finalize.json', JSON.stringify({ ...stuck, spec: { finalizers: [] } }));
    const refused = await kubectl(alice, ['replace', '--raw', '/api/v1/namespaces/stuck/finalize', '-f', body]);
    expect(refused.code).not.toBe(0);
    expect(lastError(refused)).toBe(
      'Error from server (Forbidden): namespaces "stuck" is forbidden: User "alice" cannot update resource "namespaces/finalize" in API group "" in the namespace "stuck"',
    );
    const replaced = JSON.parse(await ok(admin, ['replace', '--raw', '/api/v1/namespaces/stuck/finalize', '-f', body]));
    expect(replaced).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'stuck' }, spec: {}, status: { phase: 'Terminating' } });
    expect(replaced.spec.finalizers).toBeUndefined();
    // Its last finalizer gone, the namespace goes in the same update.
    const gone = await kubectl(admin, ['get', 'namespace', 'stuck']);
    expect(lastError(gone)).toBe('Error from server (NotFound): namespaces "stuck" not found');
  });

  it('keeps a user from granting more than it holds, unless it may escalate or bind', async () => {
    // alice may manage RBAC objects in team-a and clusterroles/bindings, but holds nothing more.
    await ok(admin, ['create', 'clusterrole', 'rbac-manager', '--verb=get,list,create,update,patch', '--resource=clusterroles.rbac.authorization.k8s.io,clusterrolebindings.rbac.authorization.k8s.io,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io']);
    await ok(admin, ['create', 'clusterrolebinding', 'alice-rbac-manager', '--clusterrole=rbac-manager', '--user=alice']);
    await canI(alice, ['create', 'clusterroles'], 'yes');

    // A role with rules she has: allowed. One with more: 403 with Kubernetes' message.
    expect(await ok(alice, ['create', 'clusterrole', 'reader-copy', '--verb=get,list', '--resource=clustertrustbundles.certificates.plat.io'])).toContain('created');
    const more = await kubectl(alice, ['create', 'clusterrole', 'deleter', '--verb=delete', '--resource=clustertrustbundles.certificates.plat.io']);
    expect(more.stderr.trim()).toBe(
      'Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io "deleter" is forbidden: user "alice" (groups=["team-a" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["certificates.plat.io"], Resources:["clustertrustbundles"], Verbs:["delete"]}',
    );
    // Binding herself to cluster-admin: 403; to a role whose rules she holds: allowed.
    const selfAdmin = await kubectl(alice, ['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice']);
    expect(selfAdmin.code).toBe(1);
    expect(selfAdmin.stderr).toContain('clusterrolebindings.rbac.authorization.k8s.io "alice-admin" is forbidden: user "alice" (groups=["team-a" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
    expect(selfAdmin.stderr).toContain('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}');
    expect(await ok(alice, ['create', 'clusterrolebinding', 'bob-reader-copy', '--clusterrole=reader-copy', '--user=bob'])).toContain('created');
    // Raising a role she may update past her own rules: 403 as well (update, patch and apply).
    const patch = await kubectl(alice, ['patch', 'clusterrole', 'reader-copy', '--type=json', '-p', '[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]']);
    expect(patch.stderr).toContain('is attempting to grant RBAC permissions not currently held');
    const apply = await kubectl(alice, [
      'apply',
      '--server-side',
      '--force-conflicts',
      '-f',
      write('raise.yaml', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader-copy}\nrules:\n- {apiGroups: ["*"], resources: ["*"], verbs: ["*"]}\n'),
    ]);
    expect(apply.stderr).toContain('is attempting to grant RBAC permissions not currently held');

    // `bind` on edit (by name) lets her bind it, to bob, without holding its rules; `escalate` on
    // clusterroles lets her write any role.
    await ok(admin, ['create', 'clusterrole', 'admin-binder', '--verb=bind', '--resource=clusterroles.rbac.authorization.k8s.io', '--resource-name=edit']);
    await ok(admin, ['create', 'clusterrolebinding', 'alice-admin-binder', '--clusterrole=admin-binder', '--user=alice']);
    await canI(alice, ['bind', 'clusterroles/edit'], 'yes');
    expect(await ok(alice, ['create', 'clusterrolebinding', 'bob-edit', '--clusterrole=edit', '--user=bob'])).toContain('created');
    expect((await kubectl(alice, ['create', 'clusterrolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob'])).stderr).toContain('attempting to grant RBAC permissions not currently held');
    await ok(admin, ['create', 'clusterrole', 'escalator', '--verb=escalate', '--resource=clusterroles.rbac.authorization.k8s.io']);
    await ok(admin, ['create', 'clusterrolebinding', 'alice-escalator', '--clusterrole=escalator', '--user=alice']);
    await canI(alice, ['escalate', 'clusterroles'], 'yes');
    expect(await ok(alice, ['create', 'clusterrole', 'deleter', '--verb=delete', '--resource=clustertrustbundles.certificates.plat.io'])).toContain('created');
  });

  it('aggregates labelled cluster roles into admin, edit and view on the running server', async () => {
    await ok(
      admin,
      [
        'apply',
        '--server-side',
        '-f',
        write(
          'aggregate.yaml',
          'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: bundles-view\n  labels: {rbac.authorization.plat.io/aggregate-to-view: "true"}\nrules:\n- {apiGroups: [example.com], resources: [widgets], verbs: [get, list, watch]}\n',
        ),
      ],
    );
    const hasWidgets = async (role: string) => JSON.stringify(JSON.parse(await ok(admin, ['get', 'clusterrole', role, '-o', 'json'])).rules).includes('widgets');
    // view is aggregated into edit, edit into admin.
    await eventually(async () => (await hasWidgets('view')) && (await hasWidgets('edit')) && (await hasWidgets('admin')));
    await ok(admin, ['delete', 'clusterrole', 'bundles-view']);
    await eventually(async () => !(await hasWidgets('view')) && !(await hasWidgets('admin')));
  });
});

(hasKubectl ? describe : describe.skip)('bootstrap policy across restarts (SQLite)', () => {
  it('restores missing bootstrap rules at start and leaves roles annotated autoupdate "false" alone', async () => {
    const dir = tempDir('plat-rbac-restart-');
    const args = ['--storage-backend=sqlite'];
    let s = await startServer(path.join(dir, 'data'), args);
    const admin = { kubeconfig: s.running.adminKubeconfig!, home: tempDir('plat-kubectl-home-') };
    try {
      const empty = '[{"op":"replace","path":"/rules","value":[]}]';
      await kubectl(admin, ['patch', 'clusterrole', 'system:discovery', '--type=json', '-p', empty]);
      await kubectl(admin, ['patch', 'clusterrole', 'system:basic-user', '--type=json', '-p', empty]);
      await kubectl(admin, ['annotate', '--overwrite', 'clusterrole', 'system:basic-user', 'rbac.authorization.plat.io/autoupdate=false']);
      const rules = async (name: string) => JSON.parse((await kubectl(admin, ['get', 'clusterrole', name, '-o', 'json'])).stdout).rules ?? [];
      expect(await rules('system:discovery')).toEqual([]);
      await s.stop();
      s = await startServer(path.join(dir, 'data'), args);
      admin.kubeconfig = s.running.adminKubeconfig!;
      expect((await rules('system:discovery')).length).toBeGreaterThan(0);
      expect(await rules('system:basic-user')).toEqual([]);
      // The restarted server authorizes from the stored policy: the discovery role is back in force.
      const tokenless = await s.req('none', 'GET', '/version');
      expect(tokenless.status).toBe(200);
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(admin.home, { recursive: true, force: true });
    }
  });
});
