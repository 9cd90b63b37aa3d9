import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCertificateAuthority } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';
import { clientctl } from '../test/harness.js';

// clientctl apply --server-side against a real API server (packages/server) over HTTPS.
let server: ClientctlServer;
let env: Record<string, string>;
let tmp: string;
let anchor: string;
let anchor2: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-ssa-'));
  server = await startClientctlServer(tmp);
  env = server.env;
  anchor = (await createCertificateAuthority({ commonName: 'anchor-one' })).certPem;
  anchor2 = (await createCertificateAuthority({ commonName: 'anchor-two' })).certPem;
});

afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const ctb = (name: string, pem: string, labels: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...(Object.keys(labels).length ? { labels } : {}) },
    spec: { trustBundle: pem },
  });

const file = (name: string, content: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, content);
  return p;
};

type Entry = { manager: string; operation: string; fieldsV1: unknown };
async function getObj(name: string) {
  const r = await clientctl(['get', 'ctb', name, '-o', 'json', '--show-managed-fields'], env);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { metadata: { resourceVersion: string; labels?: Record<string, string>; managedFields?: Entry[] }; spec: { trustBundle: string } };
}
const managers = (o: { metadata: { managedFields?: Entry[] } }) => (o.metadata.managedFields ?? []).map((e) => [e.manager, e.operation]);

describe('clientctl apply --server-side', () => {
  it('creates, leaves an unchanged object alone and changes it, as the clientctl manager', async () => {
    const f = file('one.json', ctb('ssa-one', anchor, { tier: 'a' }));
    expect(await clientctl(['apply', '--server-side', '-f', f], env)).toEqual({
      code: 0,
      stdout: 'clustertrustbundle.certificates.plat.io/ssa-one serverside-applied\n',
      stderr: '',
    });
    const first = await getObj('ssa-one');
    expect(managers(first)).toEqual([['clientctl', 'Apply']]);
    expect(first.metadata.managedFields![0]!.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:tier': {} } }, 'f:spec': { 'f:trustBundle': {} } });

    expect((await clientctl(['apply', '--server-side', '-f', f], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/ssa-one serverside-applied\n');
    expect((await getObj('ssa-one')).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    file('one.json', ctb('ssa-one', anchor));
    expect((await clientctl(['apply', '--server-side', '-f', f, '-o', 'name'], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/ssa-one\n');
    // A label the manager stops applying is removed.
    expect((await getObj('ssa-one')).metadata.labels).toBeUndefined();
  });

  it('prints the conflict with kubectl\'s advice and exits 1; --force-conflicts takes the field', async () => {
    const f = file('two.json', ctb('ssa-two', anchor, { env: 'dev' }));
    expect((await clientctl(['apply', '--server-side', '-f', f], env)).code).toBe(0);
    const patched = await clientctl(['patch', 'ctb', 'ssa-two', '--type=merge', '-p', '{"metadata":{"labels":{"env":"prod"}}}'], env);
    expect(patched.code).toBe(0);

    const refused = await clientctl(['apply', '--server-side', '-f', f], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.split('\n');
    // The patch of ctb went to the preferred v1: the conflict is across versions.
    expect(lines[0]).toBe('error: Apply failed with 1 conflict: conflict with "clientctl-patch" using certificates.plat.io/v1: .metadata.labels.env');
    expect(lines[1]).toBe('Please review the fields above--they currently have other managers. Here');
    expect(refused.stderr).toContain('command with the `--force-conflicts` flag.');
    expect((await getObj('ssa-two')).metadata.labels).toEqual({ env: 'prod' });

    const forced = await clientctl(['apply', '--server-side', '--force-conflicts', '-f', f], env);
    expect(forced).toEqual({ code: 0, stdout: 'clustertrustbundle.certificates.plat.io/ssa-two serverside-applied\n', stderr: '' });
    const obj = await getObj('ssa-two');
    expect(obj.metadata.labels).toEqual({ env: 'dev' });
    expect(managers(obj)).toEqual([['clientctl', 'Apply']]);
  });

  it('records --field-manager, and another manager conflicts with it by name', async () => {
    const f = file('three.json', ctb('ssa-three', anchor));
    expect((await clientctl(['apply', '--server-side', '--field-manager=pki-operator', '-f', f], env)).code).toBe(0);
    expect(managers(await getObj('ssa-three'))).toEqual([['pki-operator', 'Apply']]);
    file('three.json', ctb('ssa-three', anchor2));
    const r = await clientctl(['apply', '--server-side', '-f', f], env);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "pki-operator": .spec.trustBundle');
  });

  it('runs --dry-run=server without storing, and reports an invalid bundle', async () => {
    const f = file('dry.json', ctb('ssa-dry', anchor));
    expect((await clientctl(['apply', '--server-side', '--dry-run=server', '-f', f], env)).stdout).toBe(
      'clustertrustbundle.certificates.plat.io/ssa-dry serverside-applied (server dry run)\n',
    );
    expect((await clientctl(['get', 'ctb', 'ssa-dry'], env)).code).toBe(1);
    const bad = file('bad.json', ctb('ssa-bad', 'not a certificate'));
    const r = await clientctl(['apply', '--server-side', '-f', bad], env);
    expect(r.code).toBe(1);
    // (kubectl prints the kind without its group here; clientctl's error printer adds it.)
    expect(r.stderr).toMatch(
      /^The ClusterTrustBundle(\.certificates\.plat\.io)? "ssa-bad" is invalid: spec\.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided\n$/,
    );
    expect((await clientctl(['get', 'ctb', 'ssa-bad'], env)).code).toBe(1);
  });

  it('refuses --force-conflicts without --server-side and --dry-run=client with it, as kubectl', async () => {
    const f = file('flags.json', ctb('ssa-flags', anchor));
    expect(await clientctl(['apply', '--force-conflicts', '-f', f], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --force-conflicts only works with --server-side\n',
    });
    expect(await clientctl(['apply', '--server-side', '--dry-run=client', '-f', f], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)\n",
    });
  });

  it('has no apply patch type: clientctl patch --type apply is refused', async () => {
    const r = await clientctl(['patch', 'ctb', 'ssa-one', '--type', 'apply', '-p', '{}'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: --type must be one of \[json merge strategic\], not "apply"/);
  });
});
