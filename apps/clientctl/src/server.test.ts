import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCertificate, createCertificateAuthority, trustAnchorFacts } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';
import { clientctl } from '../test/harness.js';

// clientctl against a real API server over HTTPS (test/clientctl-server.ts), through a kubeconfig
// with client certificates for the contexts admin and viewer.
let server: ClientctlServer;
let env: Record<string, string>;
let tmp: string;
let anchor: string;
let anchor2: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-server-'));
  server = await startClientctlServer(tmp, ['viewer']);
  env = server.env;
  anchor = (await createCertificateAuthority({ commonName: 'anchor-one' })).certPem;
  anchor2 = (await createCertificateAuthority({ commonName: 'anchor-two' })).certPem;
});

afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const ctb = (name: string, pem: string, extra = '') =>
  `apiVersion: certificates.plat.io/v1alpha1
kind: ClusterTrustBundle
metadata:
  name: ${name}${extra}
spec:
  trustBundle: |
${pem.trim().split('\n').map((l) => `    ${l}`).join('\n')}
`;

describe('clientctl against a started API server', () => {
  it('creates from a file, gets it back, and lists it as a table', async () => {
    const file = path.join(tmp, 'a.yaml');
    writeFileSync(file, ctb('bundle-a', anchor));
    expect(await clientctl(['create', '-f', file], env)).toEqual({ code: 0, stdout: 'clustertrustbundle.certificates.plat.io/bundle-a created\n', stderr: '' });
    const again = await clientctl(['create', '-f', file], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`Error from server (AlreadyExists): error when creating ${JSON.stringify(file)}: clustertrustbundles.certificates.plat.io "bundle-a" already exists\n`);
    const got = await clientctl(['get', 'ctb', 'bundle-a', '-o', 'jsonpath={.metadata.name} {.spec.trustBundle}'], env);
    expect(got.stdout).toBe(`bundle-a ${anchor.trim()}\n`.replace(/\n$/, got.stdout.endsWith('\n') ? '\n' : ''));
    const table = await clientctl(['get', 'clustertrustbundles'], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+/);
    expect(table.stdout).toContain('bundle-a');
    const list = await clientctl(['get', 'clustertrustbundle.certificates.plat.io', '-o', 'name'], env);
    expect(list.stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-a\n');
    const missing = await clientctl(['get', 'ctb', 'nope'], env);
    expect(missing).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): clustertrustbundles.certificates.plat.io "nope" not found\n' });
    expect((await clientctl(['get', 'ctb', 'nope', '--ignore-not-found'], env)).code).toBe(0);
  });

  it('patches by TYPE NAME with each patch type and reports no-change patches', async () => {
    const label = (v: string) => `{"metadata":{"labels":{"team":"${v}"}}}`;
    expect(await clientctl(['patch', 'ctb', 'bundle-a', '-p', label('a')], env)).toEqual({
      code: 0,
      stdout: 'clustertrustbundle.certificates.plat.io/bundle-a patched\n',
      stderr: '',
    });
    expect((await clientctl(['patch', 'ctb', 'bundle-a', '-p', label('a')], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-a patched (no change)\n');
    expect((await clientctl(['patch', 'clustertrustbundles/bundle-a', '--type', 'merge', '-p', label('b')], env)).stdout).toBe(
      'clustertrustbundle.certificates.plat.io/bundle-a patched\n',
    );
    const json = await clientctl(['patch', 'ctb', 'bundle-a', '--type=json', '-p', '[{"op":"replace","path":"/metadata/labels/team","value":"c"}]', '-o', 'jsonpath={.metadata.labels.team}'], env);
    expect(json).toEqual({ code: 0, stdout: 'c', stderr: '' });
    const yamlPatch = await clientctl(['patch', 'ctb', 'bundle-a', '-p', `spec:\n  trustBundle: |\n${anchor2.trim().split('\n').map((l) => `    ${l}`).join('\n')}\n`, '-o', 'json'], env);
    expect(yamlPatch.code).toBe(0);
    expect(JSON.parse(yamlPatch.stdout).spec.trustBundle.trim()).toBe(anchor2.trim());
  });

  it('sends --dry-run=server without persisting, and records the field manager in managedFields', async () => {
    const dry = await clientctl(['patch', 'ctb', 'bundle-a', '--type', 'merge', '-p', '{"metadata":{"labels":{"dry":"yes"}}}', '--dry-run=server', '-o', 'jsonpath={.metadata.labels.dry}'], env);
    expect(dry).toEqual({ code: 0, stdout: 'yes', stderr: '' });
    expect((await clientctl(['patch', 'ctb', 'bundle-a', '--type', 'merge', '-p', '{"metadata":{"labels":{"d2":"x"}}}', '--dry-run=server'], env)).stdout).toBe(
      'clustertrustbundle.certificates.plat.io/bundle-a patched (server dry run)\n',
    );
    expect((await clientctl(['get', 'ctb', 'bundle-a', '-o', 'jsonpath={.metadata.labels}'], env)).stdout).not.toContain('dry');
    await clientctl(['patch', 'ctb', 'bundle-a', '--type', 'merge', '-p', '{"metadata":{"labels":{"owner":"me"}}}', '--field-manager', 'team-tool'], env);
    const withFields = JSON.parse((await clientctl(['get', 'ctb', 'bundle-a', '-o', 'json', '--show-managed-fields'], env)).stdout);
    const managers = (withFields.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
    expect(managers).toEqual(expect.arrayContaining(['clientctl-patch', 'team-tool']));
    expect((await clientctl(['get', 'ctb', 'bundle-a', '-o', 'json'], env)).stdout).not.toContain('managedFields');
  });

  it('patches the objects named by -f and -k on the server', async () => {
    const file = path.join(tmp, 'a-again.yaml');
    writeFileSync(file, ctb('bundle-a', anchor));
    expect(await clientctl(['patch', '-f', file, '--type=merge', '-p', '{"metadata":{"annotations":{"from":"file"}}}'], env)).toEqual({
      code: 0,
      stdout: 'clustertrustbundle.certificates.plat.io/bundle-a patched\n',
      stderr: '',
    });
    const dir = mkdtempSync(path.join(tmp, 'k-'));
    writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources: [b.yaml]\n');
    writeFileSync(path.join(dir, 'b.yaml'), ctb('bundle-a', anchor));
    const k = await clientctl(['patch', '-k', dir, '--type=merge', '-p', '{"metadata":{"annotations":{"from":"kustomize"}}}', '-o', 'jsonpath={.metadata.annotations.from}'], env);
    expect(k).toEqual({ code: 0, stdout: 'kustomize', stderr: '' });
    const local = await clientctl(['patch', '--dry-run=client', 'ctb', 'bundle-a', '--type=merge', '-p', '{"metadata":{"annotations":{"from":"client"}}}', '-o', 'jsonpath={.metadata.annotations.from}'], env);
    expect(local).toEqual({ code: 0, stdout: 'client', stderr: '' });
    expect((await clientctl(['get', 'ctb', 'bundle-a', '-o', 'jsonpath={.metadata.annotations.from}'], env)).stdout).toBe('kustomize');
  });

  it('ignores --namespace for a cluster-scoped kind without a word, as kubectl 1.32 does', async () => {
    const r = await clientctl(['patch', 'ctb', 'bundle-a', '-n', 'team-a', '--type=merge', '-p', '{"metadata":{"labels":{"ns":"ignored"}}}'], env);
    expect(r).toEqual({ code: 0, stdout: 'clustertrustbundle.certificates.plat.io/bundle-a patched\n', stderr: '' });
  });

  it('fails on a subresource the resource does not have', async () => {
    const r = await clientctl(['patch', 'ctb', 'bundle-a', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":2}}'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error from server \(NotFound\): /);
  });

  it('shows server errors for invalid patches in kubectl\'s shape', async () => {
    const r = await clientctl(['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '{"spec":{"trustBundle":"not a pem"}}'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^The ClusterTrustBundle "bundle-a" is invalid: spec\.trustBundle/);
    const missing = await clientctl(['patch', 'ctb', 'nope', '-p', '{}'], env);
    expect(missing.stderr).toBe('Error from server (NotFound): clustertrustbundles.certificates.plat.io "nope" not found\n');
    const unknown = await clientctl(['patch', 'widgets', 'x', '-p', '{}'], env);
    expect(unknown.stderr).toBe('error: the server doesn\'t have a resource type "widgets"\n');
  });

  it('applies client-side: created, unchanged, configured (removing what was dropped)', async () => {
    const file = path.join(tmp, 'b.yaml');
    writeFileSync(file, ctb('bundle-b', anchor, '\n  labels: {tier: one, keep: "yes"}'));
    expect((await clientctl(['apply', '-f', file], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-b created\n');
    expect((await clientctl(['apply', '-f', file], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-b unchanged\n');
    writeFileSync(file, ctb('bundle-b', anchor, '\n  labels: {keep: "yes"}'));
    expect((await clientctl(['apply', '-f', file], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-b configured\n');
    const obj = JSON.parse((await clientctl(['get', 'ctb', 'bundle-b', '-o', 'json'], env)).stdout);
    expect(obj.metadata.labels).toEqual({ keep: 'yes' });
    expect(obj.metadata.annotations['kubectl.plat.io/last-applied-configuration']).toContain('"keep":"yes"');
  });

  it('lists api-resources, prints versions and checks --match-server-version', async () => {
    const res = await clientctl(['api-resources'], env);
    expect(res.stdout.split('\n')[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
    // The preferred version of each group that serves it.
    expect(res.stdout).toMatch(/clustertrustbundles\s+ctb\s+certificates\.plat\.io\/v1\s+false\s+ClusterTrustBundle/);
    expect(res.stdout).toMatch(/clustertrustbundles\s+certificates\.k8s\.io\/v1\s+false\s+ClusterTrustBundle/);
    const v = await clientctl(['version'], env);
    expect(v.stdout).toMatch(/^Client Version: v0\.1\.0\nServer Version: v\S+\n$/);
    const server = /Server Version: (\S+)/.exec(v.stdout)![1];
    const mismatch = await clientctl(['get', 'ctb', '--match-server-version', '--version=v9.9.9'], env);
    expect(mismatch.stderr).toBe(`error: server version (${server}) differs from client version (v9.9.9)!\n`);
    expect((await clientctl(['get', 'ctb', '-o', 'name', '--match-server-version', `--version=${server}`], env)).code).toBe(0);
  });

  it('uses the context, user and impersonation flags', async () => {
    const denied = await clientctl(['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '{"metadata":{"labels":{"v":"1"}}}', '--context', 'viewer'], env);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^Error from server \(Forbidden\): .*"viewer"/);
    // Every authenticated user may read bundles; writing as an impersonated user is refused by name.
    expect((await clientctl(['get', 'ctb', 'bundle-a', '-o', 'name', '--as', 'someone', '--as-group', 'g1'], env)).stdout).toBe(
      'clustertrustbundle.certificates.plat.io/bundle-a\n',
    );
    const asOther = await clientctl(['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '{"metadata":{"labels":{"v":"1"}}}', '--as', 'someone'], env);
    expect(asOther.stderr).toMatch(/^Error from server \(Forbidden\): .*"someone"/);
    expect((await clientctl(['get', 'ctb', '--context', 'nope'], env)).stderr).toBe('Error in configuration: context was not found for specified context: nope\n');
  });

  const kubectl = '/usr/bin/kubectl';
  const readCases = [
    ['get', 'clustertrustbundles'],
    ['get', 'ctb', 'bundle-a', '-o', 'yaml'],
    ['get', 'ctb', 'bundle-a', '-o', 'json'],
    ['get', 'ctb', '-o', 'name'],
    ['get', 'ctb', '-o', 'jsonpath={.items[*].metadata.name}'],
    ['get', 'clustertrustbundles.certificates.plat.io/bundle-a', '-o', 'go-template={{.kind}} {{len .spec.trustBundle}}'],
    ['get', 'ctb', 'nope'],
    ['get', 'widgets'],
    ['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}}}', '--dry-run=server', '-o', 'jsonpath={.metadata.labels}'],
    ['patch', 'ctb', 'nope', '-p', '{}'],
    ['delete', 'ctb', 'nope'],
    ['api-resources'],
    ['api-resources', '-o', 'wide', '--api-group', 'certificates.plat.io'],
    ['get', 'ctb', '-o', 'wide'],
    ['get', 'ctb', '--show-labels'],
    ['get', 'ctb', '-l', 'team=c'],
    ['get', 'ctb', '--no-headers'],
    ['get', 'ctb', '--field-selector', 'spec.signerName=example.com/none'],
    ['get', 'ctb', 'bundle-a', 'nope', '-o', 'name'],
    ['patch', 'ctb', 'bundle-a', '-p', '{}'],
    ['get', 'ctb', 'bundle-a', '--template', '{{.metadata.name}}'],
    ['get', 'ctb', '-o', 'yaml'],
    ['get', 'ctb', '-o', 'jsonpath-as-json={.items[*].metadata.name}'],
    ['patch', 'ctb', 'bundle-a', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":2}}'],
    ['patch', 'ctb', 'bundle-a', '--subresource=status', '--type=merge', '-p', '{"status":{}}'],
    ['patch', 'ctb', 'bundle-a', '--type=json', '-p', '[{"op":"test","path":"/metadata/name","value":"other"}]'],
    ['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '{"spec":{"trustBundle":"garbage"}}'],
    ['get', 'ctb', 'bundle-a', '--request-timeout=5s', '--disable-compression', '-o', 'name'],
    ['get', 'ctb', '--request-timeout=abc'],
    ['patch', 'ctb', 'bundle-a', '-n', 'team-a', '--type=merge', '-p', '{"metadata":{"labels":{"ns":"ignored"}}}'],
    // A blank patch is `null`: a no-op for strategic and JSON patch, refused by merge patch.
    ['patch', 'ctb', 'bundle-a', '-p', ' '],
    ['patch', 'ctb', 'bundle-a', '--type=json', '-p', '# nothing', '-o', 'jsonpath={.metadata.name}'],
    ['patch', 'ctb', 'bundle-a', '--type=merge', '-p', '\n'],
    // Each name is patched; the failures are reported at the end.
    ['patch', 'ctb', 'nope', 'bundle-a', 'nope2', '--type=merge', '-p', '{"metadata":{"labels":{"ns":"ignored"}}}'],
  ];
  // kubectl runs asynchronously: the server lives in this process and must keep answering.
  const runKubectl = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(kubectl, args, { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 20_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr: stderr.replace(/kubectl/g, 'clientctl') }),
      );
    });
  (existsSync(kubectl) ? it.each(readCases.map((args) => ({ args, line: args.join(' ') }))) : it.skip.each([]))(
    'prints what kubectl prints against the same server: $line',
    async ({ args }) => {
      const ours = await clientctl(args, env);
      const theirs = await runKubectl(args);
      // Ages are computed by the server at request time; the two requests are a moment apart.
      const age = (t: string) => t.replace(/\b\d+s\b/g, '<age>').replace(/[ \t]+/g, ' ');
      expect({ code: ours.code === 0 ? 0 : 1, stdout: age(ours.stdout), stderr: ours.stderr }).toEqual({ ...theirs, stdout: age(theirs.stdout) });
    },
  );

  it('prints server warnings and fails with --warnings-as-errors', async () => {
    const file = path.join(tmp, 'warn.yaml');
    writeFileSync(file, ctb('bundle-w', anchor, '\n  unknownMetaField: 1'));
    const warned = await clientctl(['create', '-f', file, '--validate=warn', '--dry-run=server'], env);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^Warning: .*unknownMetaField/m);
    expect(warned.stdout).toBe('clustertrustbundle.certificates.plat.io/bundle-w created (server dry run)\n');
    const strict = await clientctl(['create', '-f', file, '--dry-run=server'], env);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/unknownMetaField/);
    const asError = await clientctl(['create', '-f', file, '--validate=warn', '--dry-run=server', '--warnings-as-errors'], env);
    expect(asError.code).toBe(1);
    expect(asError.stderr).toMatch(/error: 1 warning received\n$/);
  });

  it('prints the expiry warnings of a bundle with an expired anchor and shows ANCHORS and NOT-AFTER with -o wide', async () => {
    const expired = (await createCertificate({ commonName: 'expired-root', basicConstraints: 'ca', notBefore: new Date(Date.now() - 60 * 86400_000), validityDays: 10 })).certPem;
    const old = trustAnchorFacts(expired).anchors[0]!;
    const notAfter = old.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const file = path.join(tmp, 'expired.yaml');
    writeFileSync(file, ctb('bundle-expired', anchor + expired));
    const created = await clientctl(['create', '-f', file], env);
    expect(created).toEqual({
      code: 0,
      stdout: 'clustertrustbundle.certificates.plat.io/bundle-expired created\n',
      stderr: `Warning: spec.trustBundle: trust anchor "CN=expired-root" (sha256 ${old.sha256.slice(0, 16)}) expired at ${notAfter}\n`,
    });
    const wide = await clientctl(['get', 'ctb', 'bundle-expired', '-o', 'wide'], env);
    const [header, row] = wide.stdout.split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'SIGNERNAME', 'AGE', 'ANCHORS', 'NOT-AFTER']);
    expect(row!.split(/\s+/)).toEqual(['bundle-expired', '<none>', expect.stringMatching(/^\d+s$/), '2', notAfter]);
    expect((await clientctl(['get', 'ctb', 'bundle-expired'], env)).stdout.split('\n')[0]!.split(/\s+/)).toEqual(['NAME', 'SIGNERNAME', 'AGE']);
  });

  it('answers auth whoami and auth can-i from the server', async () => {
    const who = await clientctl(['auth', 'whoami'], env);
    expect(who).toMatchObject({ code: 0, stderr: '' });
    expect(who.stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+admin\nGroups\s+\[system:masters( system:authenticated)?\]\n$/);
    expect(JSON.parse((await clientctl(['auth', 'whoami', '-o', 'json'], env)).stdout).status.userInfo.username).toBe('admin');
    expect(await clientctl(['auth', 'can-i', 'patch', 'clustertrustbundles'], env)).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
    const viewer = await clientctl(['auth', 'can-i', 'delete', 'ctb/bundle-a', '--context', 'viewer'], env);
    expect(viewer.code).toBe(1);
    expect(viewer.stdout).toMatch(/^no/);
    expect((await clientctl(['auth', 'can-i', 'get', 'ctb', '--context', 'viewer', '-q'], env))).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  (existsSync(kubectl) ? it : it.skip)('creates, re-creates, applies and deletes with the same output as kubectl', async () => {
    const files = (who: string) => {
      const f = path.join(tmp, `${who}-pair.yaml`);
      writeFileSync(f, `${ctb(`${who}-one`, anchor)}---\n${ctb(`${who}-two`, anchor2)}`);
      return f;
    };
    const k = files('k');
    const c = files('c');
    const same = async (args: (f: string) => string[]) => {
      const ours = await clientctl(args(c), env);
      const theirs = await runKubectl(args(k));
      const norm = (t: string) => t.replaceAll(k, 'FILE').replaceAll(c, 'FILE').replace(/\b[kc]-(one|two)\b/g, 'X-$1');
      expect({ code: ours.code === 0 ? 0 : 1, stdout: norm(ours.stdout), stderr: norm(ours.stderr) }).toEqual({
        code: theirs.code,
        stdout: norm(theirs.stdout),
        stderr: norm(theirs.stderr),
      });
    };
    await same((f) => ['create', '-f', f]);
    await same((f) => ['create', '-f', f]);
    await same((f) => ['create', '-f', f, '--dry-run=client', '-o', 'name']);
    await same((f) => ['get', '-f', f, '-o', 'name']);
    await same((f) => ['delete', '-f', f]);
    await same((f) => ['apply', '-f', f]);
    await same((f) => ['apply', '-f', f]);
    await same((f) => ['delete', '-f', f, '-o', 'name']);
  });

  it('deletes by name and reports missing objects', async () => {
    expect((await clientctl(['delete', 'ctb', 'bundle-b'], env)).stdout).toBe('clustertrustbundle.certificates.plat.io "bundle-b" deleted\n');
    const again = await clientctl(['delete', 'ctb', 'bundle-b'], env);
    expect(again.stderr).toBe('Error from server (NotFound): clustertrustbundles.certificates.plat.io "bundle-b" not found\n');
    expect((await clientctl(['delete', 'ctb', 'bundle-b', '--ignore-not-found'], env)).code).toBe(0);
  });
});
