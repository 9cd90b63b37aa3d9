import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatValidationReport, validateConfigFiles } from './validate-files.js';

let cwd: string;
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'plat-files-'));
  writeFileSync(join(cwd, 'tracing.yaml'), '');
  writeFileSync(join(cwd, 'authz.yaml'), 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: ABAC, name: abac}\n');
  writeFileSync(join(cwd, 'authn.json'), '{"apiVersion":"apiserver.plat.io/v1beta1","kind":"AuthenticationConfiguration","jwt":[]}');
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('validateConfigFiles', () => {
  it('returns one result per named file in flag order', async () => {
    const results = await validateConfigFiles(
      { tracingConfigFile: 'tracing.yaml', authenticationConfig: 'authn.json', authorizationConfig: join(cwd, 'authz.yaml') },
      { cwd },
    );
    expect(results.map((r) => [r.flag, r.kind, r.ok])).toEqual([
      ['--authentication-config', 'AuthenticationConfiguration', true],
      ['--authorization-config', 'AuthorizationConfiguration', false],
      ['--tracing-config-file', 'TracingConfiguration', true],
    ]);
    expect(results[0]!.path).toBe(join(cwd, 'authn.json'));
    expect(formatValidationReport(results)).toEqual({
      exitCode: 1,
      stdout: ['authn.json: valid AuthenticationConfiguration', 'tracing.yaml: valid TracingConfiguration'],
      stderr: [`${join(cwd, 'authz.yaml')}: authorizers[0].type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`],
    });
  });

  it('passes the server supported authorizer types through', async () => {
    const results = await validateConfigFiles({ authorizationConfig: 'authz.yaml' }, { cwd, authorization: { supportedTypes: ['ABAC'] } });
    expect(formatValidationReport(results)).toEqual({ exitCode: 0, stdout: ['authz.yaml: valid AuthorizationConfiguration'], stderr: [] });
  });

  it('reports unreadable files without throwing', async () => {
    const results = await validateConfigFiles({ egressSelectorConfigFile: '.' }, { cwd });
    expect(formatValidationReport(results)).toEqual({ exitCode: 1, stdout: [], stderr: ['open .: is a directory'] });
  });
});
