import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuthorizationConfiguration, type AuthorizationConfiguration, type AuthorizationLoadOptions } from './authorization.js';
import { requestActivation } from '@plat/cel';

const header = 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\n';
let dir: string;
let platConfig: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-authz-'));
  platConfig = join(dir, 'webhook.platconfig');
  writeFileSync(platConfig, 'apiVersion: v1\nkind: Config\n');
  mkdirSync(join(dir, 'a-directory'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorsOf(yaml: string, options: AuthorizationLoadOptions = {}): string[] {
  const result = loadAuthorizationConfiguration(header + yaml, options);
  return result.ok ? [] : result.errors.map((e) => e.toString());
}

function load(yaml: string): AuthorizationConfiguration {
  const result = loadAuthorizationConfiguration(header + yaml);
  if (!result.ok) throw new Error(result.errors.map(String).join('\n'));
  return result.config;
}

const webhook = (fields: Record<string, string> = {}, name = 'guard') => {
  const base: Record<string, string> = {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    failurePolicy: 'Deny',
    connectionInfo: `\n        type: PlatConfigFile\n        platConfigFile: ${platConfig}`,
    ...fields,
  };
  const lines = Object.entries(base)
    .filter(([, v]) => v !== '<absent>')
    .map(([k, v]) => `      ${k}: ${v}`)
    .join('\n');
  return `- type: Webhook\n  name: ${name}\n  webhook:\n${lines}\n`;
};

describe('AuthorizationConfiguration', () => {
  it('loads webhooks with defaults, parsed durations and compiled match conditions', () => {
    const config = load(
      `authorizers:\n${webhook({
        matchConditionSubjectAccessReviewVersion: 'v1',
        matchConditions: `\n      - expression: has(request.resourceAttributes)\n      - expression: "request.resourceAttributes.verb in ['update', 'patch']"`,
      })}${webhook({ authorizedTTL: '0s', unauthorizedTTL: '1m30s', timeout: '500ms', subjectAccessReviewVersion: 'v1beta1', failurePolicy: 'NoOpinion', connectionInfo: '\n        type: InClusterConfig' }, 'second')}- type: AlwaysAllow\n  name: alwaysallow\n`,
    );
    const [first, second, third] = config.authorizers;
    expect(first!.webhook).toMatchObject({
      authorizedTTL: '5m',
      authorizedTTLMs: 300_000,
      unauthorizedTTL: '30s',
      unauthorizedTTLMs: 30_000,
      timeout: '3s',
      timeoutMs: 3_000,
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'Deny',
      connectionInfo: { type: 'PlatConfigFile', platConfigFile: platConfig },
    });
    const conditions = first!.webhook!.matchConditions;
    expect(conditions.map((c) => c.program.evaluate(requestActivation({ resourceAttributes: { verb: 'patch' } })))).toEqual([true, true]);
    expect(second!.webhook).toMatchObject({
      authorizedTTL: '5m',
      unauthorizedTTL: '1m30s',
      unauthorizedTTLMs: 90_000,
      timeoutMs: 500,
      subjectAccessReviewVersion: 'v1beta1',
      matchConditionSubjectAccessReviewVersion: '',
      connectionInfo: { type: 'InClusterConfig' },
    });
    expect(third).toEqual({ type: 'AlwaysAllow', name: 'alwaysallow' });
  });

  it('requires at least one authorizer', () => {
    expect(errorsOf('authorizers: []\n')).toEqual(['authorizers: Required value: at least one authorization mode must be defined']);
    expect(errorsOf('')).toEqual(['authorizers: Required value: at least one authorization mode must be defined']);
  });

  it('checks types: required, supported, only Webhook repeats', () => {
    expect(errorsOf('authorizers:\n- name: x\n')).toEqual(['authorizers[0].type: Required value']);
    expect(errorsOf('authorizers:\n- type: ABAC\n  name: abac\n')).toEqual([
      'authorizers[0].type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    ]);
    expect(errorsOf('authorizers:\n- type: RBAC\n  name: rbac\n', { supportedTypes: ['AlwaysDeny', 'Webhook'] })).toEqual([
      'authorizers[0].type: Unsupported value: "RBAC": supported values: "AlwaysDeny", "Webhook"',
    ]);
    expect(errorsOf('authorizers:\n- type: AlwaysDeny\n  name: alwaysdeny\n- type: AlwaysDeny\n  name: alwaysdeny\n')).toEqual([
      'authorizers[1].type: Duplicate value: "AlwaysDeny"',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({}, 'a')}${webhook({}, 'b')}`)).toEqual([]);
  });

  it('takes Node and RBAC once each, named node and rbac, in any order with webhooks', () => {
    const config = load(`authorizers:\n- type: Node\n  name: node\n${webhook({}, 'first')}- type: RBAC\n  name: rbac\n${webhook({}, 'last')}`);
    expect(config.authorizers.map((a) => [a.type, a.name])).toEqual([
      ['Node', 'node'],
      ['Webhook', 'first'],
      ['RBAC', 'rbac'],
      ['Webhook', 'last'],
    ]);
    expect(errorsOf('authorizers:\n- type: RBAC\n  name: rbac\n- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n')).toEqual([
      'authorizers[2].type: Duplicate value: "RBAC"',
    ]);
    expect(errorsOf('authorizers:\n- type: Node\n  name: node\n- type: Node\n  name: nodes\n')).toEqual(['authorizers[1].type: Duplicate value: "Node"']);
    expect(errorsOf('authorizers:\n- type: RBAC\n  name: roles\n- type: Node\n  name: Node\n')).toEqual([
      'authorizers[0].name: Invalid value: "roles": expected name rbac for authorizer RBAC instead of roles',
      "authorizers[1].name: Invalid value: \"Node\": authorizer name is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'authorizers[1].name: Invalid value: "Node": expected name node for authorizer Node instead of Node',
    ]);
    expect(errorsOf('authorizers:\n- type: RBAC\n  name: rbac\n  webhook: {}\n')).toEqual([
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    ]);
  });

  it('checks names: required, unique, DNS-1123 labels, built-in name is the lowercase type', () => {
    expect(errorsOf(`authorizers:\n${webhook({}, '""')}`)).toEqual(['authorizers[0].name: Required value']);
    expect(errorsOf(`authorizers:\n${webhook({}, 'a')}${webhook({}, 'a')}`)).toEqual(['authorizers[1].name: Duplicate value: "a"']);
    expect(errorsOf(`authorizers:\n${webhook({}, 'Bad.Name')}`)).toEqual([
      "authorizers[0].name: Invalid value: \"Bad.Name\": authorizer name is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(errorsOf('authorizers:\n- type: AlwaysAllow\n  name: allow\n')).toEqual([
      'authorizers[0].name: Invalid value: "allow": expected name alwaysallow for authorizer AlwaysAllow instead of allow',
    ]);
  });

  it('requires webhook for type Webhook and forbids it otherwise', () => {
    expect(errorsOf('authorizers:\n- type: Webhook\n  name: w\n')).toEqual(['authorizers[0].webhook: Required value: required when type=Webhook']);
    expect(errorsOf('authorizers:\n- type: AlwaysAllow\n  name: alwaysallow\n  webhook: {}\n')).toEqual([
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    ]);
  });

  it('bounds the timeout: required, > 0s and <= 30s', () => {
    const at = (timeout: string) => errorsOf(`authorizers:\n${webhook({ timeout })}`);
    expect(errorsOf(`authorizers:\n${webhook({ timeout: '<absent>' })}`)).toEqual(['authorizers[0].webhook.timeout: Required value']);
    expect(at('0s')).toEqual(['authorizers[0].webhook.timeout: Required value']);
    expect(at('31s')).toEqual(['authorizers[0].webhook.timeout: Invalid value: "31s": must be > 0s and <= 30s']);
    expect(at('-1s')).toEqual(['authorizers[0].webhook.timeout: Invalid value: "-1s": must be > 0s and <= 30s']);
    expect(at('30s')).toEqual([]);
    expect(at('soon')).toEqual(['authorizers[0].webhook.timeout: Invalid value: "soon": time: invalid duration "soon"']);
    expect(at('"5"')).toEqual(['authorizers[0].webhook.timeout: Invalid value: "5": time: missing unit in duration "5"']);
    expect(at('5')).toEqual(['authorizers[0].webhook.timeout: Invalid value: 5: must be a string, not number']);
  });

  it('validates TTLs', () => {
    expect(errorsOf(`authorizers:\n${webhook({ authorizedTTL: '-5m' })}`)).toEqual([
      'authorizers[0].webhook.authorizedTTL: Invalid value: "-5m0s": must be > 0s',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({ unauthorizedTTL: 'x' })}`)).toEqual([
      'authorizers[0].webhook.unauthorizedTTL: Invalid value: "x": time: invalid duration "x"',
    ]);
  });

  it('checks review versions and failure policy', () => {
    expect(errorsOf(`authorizers:\n${webhook({ subjectAccessReviewVersion: '<absent>' })}`)).toEqual([
      'authorizers[0].webhook.subjectAccessReviewVersion: Required value',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({ subjectAccessReviewVersion: 'v2' })}`)).toEqual([
      'authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({ matchConditions: '\n      - expression: "true"' })}`)).toEqual([
      'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({ matchConditionSubjectAccessReviewVersion: 'v1beta1' })}`)).toEqual([
      'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"',
    ]);
    expect(errorsOf(`authorizers:\n${webhook({ failurePolicy: '<absent>' })}`)).toEqual(['authorizers[0].webhook.failurePolicy: Required value']);
    expect(errorsOf(`authorizers:\n${webhook({ failurePolicy: 'Allow' })}`)).toEqual([
      'authorizers[0].webhook.failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"',
    ]);
  });

  it("checks connectionInfo as Kubernetes does, with PlatConfigFile (Kubernetes' KubeConfigFile) and PlatConfig alike", () => {
    const ci = (body: string) => errorsOf(`authorizers:\n${webhook({ connectionInfo: body })}`);
    expect(ci('{}')).toEqual(['authorizers[0].webhook.connectionInfo.type: Required value']);
    expect(ci('{type: KubeConfigFile}')).toEqual([
      'authorizers[0].webhook.connectionInfo.type: Unsupported value: "KubeConfigFile": supported values: "InClusterConfig", "PlatConfig", "PlatConfigFile"',
    ]);
    expect(ci('{type: InClusterConfig, platConfigFile: ""}')).toEqual([
      'authorizers[0].webhook.connectionInfo.platConfigFile: Invalid value: "": can only be set when type=PlatConfigFile',
    ]);
    const missing = join(dir, 'missing');
    for (const type of ['PlatConfigFile', 'PlatConfig']) {
      expect(ci(`{type: ${type}}`)).toEqual(['authorizers[0].webhook.connectionInfo.platConfigFile: Required value']);
      expect(ci(`{type: ${type}, platConfigFile: ""}`)).toEqual(['authorizers[0].webhook.connectionInfo.platConfigFile: Required value']);
      expect(ci(`{type: ${type}, platConfigFile: relative/file}`)).toEqual([
        'authorizers[0].webhook.connectionInfo.platConfigFile: Invalid value: "relative/file": must be an absolute path',
      ]);
      expect(ci(`{type: ${type}, platConfigFile: ${missing}}`)).toEqual([
        `authorizers[0].webhook.connectionInfo.platConfigFile: Invalid value: "${missing}": error loading file: stat ${missing}: no such file or directory`,
      ]);
      expect(ci(`{type: ${type}, platConfigFile: ${join(dir, 'a-directory')}}`)).toEqual([
        `authorizers[0].webhook.connectionInfo.platConfigFile: Invalid value: "${join(dir, 'a-directory')}": must be a regular file`,
      ]);
      // Both load as Kubernetes' type, with the brand rule.
      expect(load(`authorizers:\n${webhook({ connectionInfo: `{type: ${type}, platConfigFile: ${platConfig}}` })}`).authorizers[0]!.webhook!.connectionInfo).toEqual({
        type: 'PlatConfigFile',
        platConfigFile: platConfig,
      });
    }
  });

  it('checks match conditions: at most 64, unique, non-blank, bool', () => {
    const conditions = (exprs: string[]) =>
      errorsOf(
        `authorizers:\n${webhook({
          matchConditionSubjectAccessReviewVersion: 'v1',
          matchConditions: `\n${exprs.map((e) => `      - expression: ${JSON.stringify(e)}`).join('\n')}`,
        })}`,
      );
    expect(conditions(Array.from({ length: 65 }, (_, i) => `request.user == "u${i}"`))).toEqual([
      'authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items',
    ]);
    expect(conditions(Array.from({ length: 64 }, (_, i) => `request.user == "u${i}"`))).toEqual([]);
    expect(conditions(['request.user == "a"', 'request.user == "a"'])).toEqual([
      'authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "request.user == \\"a\\""',
    ]);
    expect(conditions(['   '])).toEqual(['authorizers[0].webhook.matchConditions[0].expression: Required value']);
    expect(conditions(['request.user'])).toEqual([
      'authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string',
    ]);
    expect(conditions(['request.nope == "x"'])[0]).toMatch(/compilation failed: ERROR: <input>:1:\d+: No such key: nope/);
  });

  it('decodes strictly', () => {
    expect(errorsOf(`authorizers:\n${webhook({ timeOut: '3s' })}`)).toEqual(['unknown field "authorizers[0].webhook.timeOut"']);
    expect(errorsOf('authorizers: []\nauthorizers: []\n')).toEqual(['duplicate field "authorizers"']);
    expect(errorsOf(`authorizers:\n${webhook({ connectionInfo: '\n        type: PlatConfig\n        kubeConfigFile: /x' })}`)).toEqual([
      'unknown field "authorizers[0].webhook.connectionInfo.kubeConfigFile"',
    ]);
  });

  it('refuses an empty file as Kubernetes does: a configuration without authorizers', () => {
    for (const text of ['', '# nothing\n']) {
      const empty = loadAuthorizationConfiguration(text);
      expect(empty.ok ? [] : empty.errors.map(String)).toEqual(['authorizers: Required value: at least one authorization mode must be defined']);
    }
  });
});
