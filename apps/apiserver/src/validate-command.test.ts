import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { runValidate, validateCommand, type ValidateArgs } from './validate-command.js';

const docsDir = fileURLToPath(new URL('../../../docs/config/', import.meta.url));
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'plat-validate-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function sink() {
  let text = '';
  return { write: (chunk: string) => ((text += chunk), true), text: () => text };
}

async function run(argv: ValidateArgs) {
  const stdout = sink();
  const stderr = sink();
  const code = await runValidate(argv, { stdout, stderr, cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function write(name: string, text: string): string {
  writeFileSync(join(cwd, name), text);
  return name;
}

const authn = (body: string) => `apiVersion: apiserver.plat.io/v1beta1\nkind: AuthenticationConfiguration\n${body}`;

/** The first ```yaml block after a `## <heading>` line of a docs page. */
function example(page: string, heading: string): string {
  const text = readFileSync(join(docsDir, page), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${page}: no "## ${heading}" section`);
  const block = /```yaml\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`${page}: no yaml block under "## ${heading}"`);
  return block[1]!;
}

describe('apiserver validate (runValidate)', () => {
  it('exits 0 for a valid file and says so', async () => {
    const file = write('authn.yaml', authn('jwt: []\n'));
    expect(await run({ authenticationConfig: file })).toEqual({ code: 0, stdout: 'authn.yaml: valid AuthenticationConfiguration\n', stderr: '' });
  });

  it('exits 1 with one `path: Type: detail` line per error, paths relative to the file root', async () => {
    const file = write(
      'bad-authn.yaml',
      authn('jwt:\n- issuer:\n    url: http://issuer\n    audiences: [a, a]\n    audienceMatchPolicy: MatchAny\n  claimMappings:\n    username:\n      claim: sub\n'),
    );
    const out = await run({ authenticationConfig: file });
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr.split('\n')).toEqual([
      'jwt[0].issuer.url: Invalid value: "http://issuer": URL scheme must be https',
      'jwt[0].issuer.audiences[1]: Duplicate value: "a"',
      'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      '',
    ]);
  });

  it('reports strict-decoding problems as Kubernetes does', async () => {
    const file = write('typo.yaml', authn('jwt:\n- issuer:\n    isuer: x\n'));
    expect(await run({ authenticationConfig: file })).toMatchObject({ code: 1, stderr: 'unknown field "jwt[0].issuer.isuer"\n' });
  });

  it('prefixes lines with the file name when several files are named, and prints warnings', async () => {
    const egress = write(
      'egress.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n',
    );
    const tracing = write('tracing.yaml', 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n');
    const out = await run({ egressSelectorConfigFile: egress, tracingConfigFile: tracing });
    expect(out.code).toBe(1);
    expect(out.stderr.split('\n')).toEqual([
      'Warning: egress.yaml: egressSelections[0].name: "master" is deprecated, use "controlplane"',
      'tracing.yaml: samplingRatePerMillion: Invalid value: 2000000: sampling rate per million must be less than or equal to one million',
      '',
    ]);
    expect(out.stdout).toBe('egress.yaml: valid EgressSelectorConfiguration\n');
  });

  it('exits 0 with warnings only', async () => {
    const egress = write(
      'egress-master.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n',
    );
    const out = await run({ egressSelectorConfigFile: egress });
    expect(out).toEqual({
      code: 0,
      stdout: 'egress-master.yaml: valid EgressSelectorConfiguration\n',
      stderr: 'Warning: egressSelections[0].name: "master" is deprecated, use "controlplane"\n',
    });
  });

  it('reports unreadable files and needs at least one file', async () => {
    expect(await run({ authorizationConfig: 'missing.yaml' })).toEqual({ code: 1, stdout: '', stderr: 'open missing.yaml: no such file or directory\n' });
    const none = await run({});
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: name at least one file/);
  });

  it('resolves egress TLS files against the current directory', async () => {
    mkdirSync(join(cwd, 'tls'), { recursive: true });
    const body = (dirName: string) =>
      `apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: https://proxy.example:8131\n        tlsConfig:\n          clientCert: ${dirName}/c.crt\n          clientKey: ${dirName}/c.key\n`;
    writeFileSync(join(cwd, 'tls', 'c.crt'), 'x');
    writeFileSync(join(cwd, 'tls', 'c.key'), 'x');
    expect((await run({ egressSelectorConfigFile: write('egress-tls.yaml', body('tls')) })).code).toBe(0);
    const missing = await run({ egressSelectorConfigFile: write('egress-tls-missing.yaml', body('nope')) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('egressSelections[0].connection.transport.tcp.tlsConfig.clientCert: Invalid value: "nope/c.crt": TLS client cert does not exist');
  });
});

describe('apiserver validate: one rule per kind through the command', () => {
  const h = (kind: string) => `apiVersion: apiserver.plat.io/v1beta1\nkind: ${kind}\n`;
  const cases: { name: string; flag: keyof ValidateArgs; text: string; code: number; stderr: string }[] = [
    {
      name: 'webhook errors at their real place',
      flag: 'authorizationConfig',
      text: `${h('AuthorizationConfiguration')}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 45s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo: {type: InClusterConfig}\n`,
      code: 1,
      stderr: 'authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s\n',
    },
    {
      name: 'rule expressions must be bool',
      flag: 'authenticationConfig',
      text: `${h('AuthenticationConfiguration')}jwt:\n- issuer: {url: "https://i.example", audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n  claimValidationRules:\n  - expression: claims.?email_verified.orValue(true)\n`,
      code: 1,
      stderr: 'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.?email_verified.orValue(true)": must evaluate to bool\n',
    },
    { name: 'an empty egress file', flag: 'egressSelectorConfigFile', text: '', code: 1, stderr: 'the file is empty: an EgressSelectorConfiguration needs apiVersion, kind and egressSelections\n' },
    { name: 'an empty tracing file', flag: 'tracingConfigFile', text: '', code: 0, stderr: '' },
    {
      name: 'duplicate keys',
      flag: 'tracingConfigFile',
      text: `${h('TracingConfiguration')}endpoint: a:1\nendpoint: b:1\n`,
      code: 1,
      stderr: 'duplicate field "endpoint"\n',
    },
  ];
  cases.forEach((c, i) => {
    it(c.name, async () => {
      const file = write(`case-${i}.yaml`, c.text);
      expect(await run({ [c.flag]: file })).toMatchObject({ code: c.code, stderr: c.stderr });
    });
  });
});

describe('apiserver validate through yargs', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  it('accepts the authorizer types this server builds: Node and RBAC yes, ABAC no', async () => {
    const file = write(
      'authz-types.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n- {type: ABAC, name: abac}\n',
    );
    expect(await run({ authorizationConfig: file })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authorizers[2].type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"\n',
    });
  });

  it('parses the kebab-case flags and sets the exit code', async () => {
    const file = write('authz.yaml', 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers: []\n');
    const stdout = sink();
    const stderr = sink();
    await yargs(['validate', '--authorization-config', file])
      .parserConfiguration({ 'camel-case-expansion': false })
      .command(validateCommand({ stdout, stderr, cwd }))
      .strict()
      .parseAsync();
    expect(process.exitCode).toBe(1);
    expect(stderr.text()).toBe('authorizers: Required value: at least one authorization mode must be defined\n');

    // An empty file is a configuration without authorizers, as kube-apiserver loads it.
    const empty = sink();
    process.exitCode = undefined;
    await yargs(['validate', `--authorization-config=${write('authz-empty.yaml', '')}`]).command(validateCommand({ stdout, stderr: empty, cwd })).strict().parseAsync();
    expect(process.exitCode).toBe(1);
    expect(empty.text()).toBe('authorizers: Required value: at least one authorization mode must be defined\n');

    const ok = write('authz-ok.yaml', 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: AlwaysAllow, name: alwaysallow}\n');
    process.exitCode = undefined;
    await yargs(['validate', `--authorization-config=${ok}`]).command(validateCommand({ stdout, stderr, cwd })).strict().parseAsync();
    expect(process.exitCode).toBe(0);
  });
});

describe('the examples of docs/config validate', () => {
  const pages = [
    { page: 'authentication.md', flag: 'authenticationConfig' },
    { page: 'authorization.md', flag: 'authorizationConfig' },
    { page: 'egress-selector.md', flag: 'egressSelectorConfigFile' },
    { page: 'tracing.md', flag: 'tracingConfigFile' },
  ] as const;

  for (const { page, flag } of pages) {
    for (const heading of ['Minimal example', 'Full example']) {
      it(`${page}: ${heading}`, async () => {
        let text = example(page, heading);
        // The authorization example names a webhook kubeconfig under /etc/plat, which must exist:
        // create it under the test directory instead.
        if (text.includes('/etc/plat/')) {
          mkdirSync(join(cwd, 'etc-plat'), { recursive: true });
          writeFileSync(join(cwd, 'etc-plat', 'signer-guard.platconfig'), 'apiVersion: v1\nkind: Config\n');
          text = text.replaceAll('/etc/plat/', `${join(cwd, 'etc-plat')}/`);
        }
        // The egress example names TLS files relative to the current directory.
        if (text.includes('pki/')) {
          mkdirSync(join(cwd, 'pki'), { recursive: true });
          for (const f of ['konnectivity-ca.crt', 'konnectivity-client.crt', 'konnectivity-client.key']) writeFileSync(join(cwd, 'pki', f), 'x');
        }
        const file = write(`${page}-${heading.split(' ')[0]}.yaml`, text);
        const out = await run({ [flag]: file });
        expect(out).toMatchObject({ code: 0, stderr: '' });
      });
    }
  }
});

describe('apiserver validate as a process (the bundled app)', () => {
  // jest's globalSetup (test/global-setup.mjs) bundles main.ts and names the bundle here.
  const bundle = process.env.PLAT_APISERVER_BUNDLE ?? '';

  function exec(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [bundle, ...args], { cwd, timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }

  it('exits 0 for valid files and 1 with prefixed error lines otherwise', async () => {
    expect(bundle).not.toBe('');
    const good = write('proc-tracing.yaml', example('tracing.md', 'Full example'));
    const ok = await exec(['validate', '--tracing-config-file', good]);
    expect(ok).toEqual({ code: 0, stdout: 'proc-tracing.yaml: valid TracingConfiguration\n', stderr: '' });

    const bad = write('proc-authn.yaml', authn('jwt:\n- issuer:\n    url: http://issuer\n    audiences: [a]\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n'));
    const egress = write(
      'proc-egress.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n',
    );
    const out = await exec(['validate', `--authentication-config=${bad}`, '--egress-selector-config-file', egress]);
    expect(out.code).toBe(1);
    expect(out.stderr.split('\n')).toEqual([
      'proc-authn.yaml: jwt[0].issuer.url: Invalid value: "http://issuer": URL scheme must be https',
      'Warning: proc-egress.yaml: egressSelections[0].name: "master" is deprecated, use "controlplane"',
      '',
    ]);
    expect(out.stdout).toBe('proc-egress.yaml: valid EgressSelectorConfiguration\n');
  });

  it('rejects unknown flags', async () => {
    const out = await exec(['validate', '--authentication-conifg', 'x.yaml']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('authentication-conifg');
  });
});

describe('apiserver validate --audit-policy-file', () => {
  it('accepts the minimal example of docs/config/audit-policy.md', async () => {
    const file = write('audit-doc.yaml', example('audit-policy.md', 'Minimal example'));
    expect(await run({ auditPolicyFile: file })).toEqual({ code: 0, stdout: 'audit-doc.yaml: valid Policy\n', stderr: '' });
  });

  it('reports a valid policy and one with Kubernetes’ field errors', async () => {
    const good = write('audit-good.yaml', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    expect(await run({ auditPolicyFile: good })).toEqual({ code: 0, stdout: 'audit-good.yaml: valid Policy\n', stderr: '' });
    const bad = write('audit-bad.yaml', 'apiVersion: audit.plat.io/v1\nkind: Policy\nrules:\n- level: All\n  nonResourceURLs: [healthz]\n');
    expect(await run({ auditPolicyFile: bad })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'rules[0].level: Unsupported value: "All": supported values: "None", "Metadata", "Request", "RequestResponse"\n' +
        "rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' character\n",
    });
  });
});
