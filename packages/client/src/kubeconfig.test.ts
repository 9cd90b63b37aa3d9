import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadKubeConfig, readKubeConfigFile, setCurrentContext } from './kubeconfig.js';
import { parseDuration, resolveRestConfig } from './rest-config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'plat-kubeconfig-'));
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
};

const first = write(
  'one/config',
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: https://one.example:6443, certificate-authority: ca.pem}
users:
- name: u1
  user: {token: first-token}
contexts:
- name: ctx1
  context: {cluster: c1, user: u1, namespace: ns1}
current-context: ctx1
`,
);
write('one/ca.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
const second = write(
  'two/config',
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: https://shadowed.example}
- name: c2
  cluster:
    server: https://two.example
    certificate-authority-data: ${Buffer.from('CA-DATA').toString('base64')}
    tls-server-name: api.two.example
users:
- name: u1
  user: {token: shadowed}
- name: u2
  user: {username: bob, password: secret, as: carol, as-groups: [g1]}
contexts:
- name: ctx2
  context: {cluster: c2, user: u2}
current-context: ctx2
`,
);

describe('loadKubeConfig', () => {
  it('merges KUBECONFIG files: the first file to define a name or current-context wins', () => {
    const loaded = loadKubeConfig({ envValue: [first, path.join(dir, 'missing'), second].join(path.delimiter) });
    expect(loaded.config['current-context']).toBe('ctx1');
    expect(loaded.config.clusters.map((c) => [c.name, c.cluster.server])).toEqual([
      ['c1', 'https://one.example:6443'],
      ['c2', 'https://two.example'],
    ]);
    expect(loaded.config.users.find((u) => u.name === 'u1')?.user.token).toBe('first-token');
    expect(loaded.files).toEqual([first, second]);
    expect(loaded.defaultFile).toBe(first);
  });

  it('uses $HOME/.plat/config by default and tolerates its absence', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'plat-home-'));
    expect(loadKubeConfig({ homeDir: home }).config.clusters).toEqual([]);
    write('home/.plat/config', readFileSync(second, 'utf8'));
    expect(loadKubeConfig({ homeDir: path.join(dir, 'home') }).config['current-context']).toBe('ctx2');
  });

  it('requires an explicit --kubeconfig file to exist', () => {
    expect(() => loadKubeConfig({ explicitPath: path.join(dir, 'nope') })).toThrow(`stat ${path.join(dir, 'nope')}: no such file or directory`);
  });

  it('reports YAML errors and foreign kinds with the file name', () => {
    const bad = write('bad', 'garbage: [\n');
    expect(() => readKubeConfigFile(bad)).toThrow(`error loading config file "${bad}": yaml:`);
    const wrong = write('wrong', 'apiVersion: v1\nkind: Pod\n');
    expect(() => readKubeConfigFile(wrong)).toThrow('no kind "Pod" is registered');
  });

  it('writes use-context into the default file only', () => {
    const copy = write('three/config', readFileSync(first, 'utf8'));
    const loaded = loadKubeConfig({ envValue: [copy, second].join(path.delimiter) });
    setCurrentContext(loaded, 'ctx2');
    expect(readKubeConfigFile(copy)?.['current-context']).toBe('ctx2');
    expect(readKubeConfigFile(second)?.['current-context']).toBe('ctx2');
    expect(() => setCurrentContext(loaded, 'nope')).toThrow('no context exists with the name: "nope"');
  });
});

describe('resolveRestConfig', () => {
  const loaded = loadKubeConfig({ envValue: [first, second].join(path.delimiter) });

  it('resolves the current context, reading relative files against their kubeconfig', () => {
    const c = resolveRestConfig(loaded);
    expect(c).toMatchObject({ server: 'https://one.example:6443', token: 'first-token', namespace: 'ns1', contextName: 'ctx1' });
    expect(c.ca).toContain('BEGIN CERTIFICATE');
  });

  it('applies --context, --cluster, --user and single-field overrides', () => {
    const c = resolveRestConfig(loaded, { context: 'ctx2' });
    expect(c).toMatchObject({ server: 'https://two.example', username: 'bob', password: 'secret', tlsServerName: 'api.two.example', ca: 'CA-DATA', namespace: 'default' });
    expect(c.impersonate).toEqual({ user: 'carol', groups: ['g1'], uid: undefined, extra: {} });
    const o = resolveRestConfig(loaded, { context: 'ctx2', cluster: 'c1', user: 'u1', namespace: 'n9', as: 'dave', asGroups: ['x', 'y'], asUid: '7', tlsServerName: 'z', disableCompression: true });
    expect(o).toMatchObject({ server: 'https://one.example:6443', token: 'first-token', namespace: 'n9', namespaceExplicit: true, tlsServerName: 'z', disableCompression: true });
    expect(o.impersonate).toEqual({ user: 'dave', groups: ['x', 'y'], uid: '7', extra: {} });
    const s = resolveRestConfig(loaded, { server: '127.0.0.1:9443', token: 't2', insecureSkipTlsVerify: true, requestTimeout: '2m' });
    expect(s).toMatchObject({ server: 'https://127.0.0.1:9443', token: 't2', insecureSkipTlsVerify: true, ca: undefined, timeoutMs: 120000 });
  });

  it('reads client certificates and keys from files and data flags', () => {
    const cert = write('c.crt', 'CERT');
    const key = write('c.key', 'KEY');
    expect(resolveRestConfig(loaded, { clientCertificate: cert, clientKey: key })).toMatchObject({ cert: 'CERT', key: 'KEY' });
    expect(resolveRestConfig(loaded, { clientCertificateData: 'C2', clientKeyData: 'K2' })).toMatchObject({ cert: 'C2', key: 'K2' });
  });

  it('fails as kubectl does for unknown names and contradictory flags', () => {
    expect(() => resolveRestConfig(loaded, { context: 'zz' })).toThrow('context was not found for specified context: zz');
    expect(() => resolveRestConfig(loaded, { cluster: 'zz' })).toThrow('no server found for cluster "zz"');
    expect(() => resolveRestConfig(loaded, { user: 'zz' })).toThrow('auth info "zz" does not exist');
    expect(() => resolveRestConfig(loaded, { certificateAuthority: write('x.pem', 'x'), insecureSkipTlsVerify: true })).toThrow(
      'specifying a root certificates file with the insecure flag is not allowed',
    );
    expect(() => resolveRestConfig(loaded, { certificateAuthority: path.join(dir, 'absent.pem') })).toThrow(/unable to read certificate-authority .*absent.pem for c1 due to open .*: no such file or directory/);
    expect(() => resolveRestConfig(loaded, { asGroups: ['g'] , context: 'ctx1'})).toThrow('without impersonating a user');
  });

  it('falls back to http://localhost:8080 with no configuration at all', () => {
    const empty = loadKubeConfig({ homeDir: mkdtempSync(path.join(os.tmpdir(), 'plat-empty-')) });
    expect(resolveRestConfig(empty).server).toBe('http://localhost:8080');
  });
});

describe('parseDuration', () => {
  it('accepts bare seconds and Go durations, rejects the rest with kubectl\'s text', () => {
    expect(parseDuration('5')).toBe(5000);
    expect(parseDuration('1m30s')).toBe(90000);
    expect(parseDuration('1.5h')).toBe(5400000);
    expect(parseDuration('250ms')).toBe(250);
    expect(() => parseDuration('abc')).toThrow(
      'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
    );
  });
});
