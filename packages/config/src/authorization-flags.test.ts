import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorizationConfigurationFromFlags, validateAuthorizationFlags } from './authorization-flags.js';

let dir: string;
let kubeconfig: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-authz-flags-'));
  kubeconfig = join(dir, 'webhook.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('legacy authorization flags', () => {
  it('checks the flags with kube-apiserver messages', () => {
    expect(validateAuthorizationFlags({ modes: [] })).toEqual(['at least one authorization-mode must be passed']);
    expect(validateAuthorizationFlags({ modes: ['ABAC'] })).toEqual(['authorization-mode "ABAC" is not a valid mode']);
    expect(validateAuthorizationFlags({ modes: ['Webhook'] })).toEqual(["authorization-mode Webhook's authorization config file not passed"]);
    expect(validateAuthorizationFlags({ modes: ['AlwaysAllow'], webhookConfigFile: '/x' })).toEqual([
      'cannot specify --authorization-webhook-config-file without mode Webhook',
    ]);
    expect(validateAuthorizationFlags({ modes: ['AlwaysDeny', 'AlwaysDeny'] })).toEqual([
      'authorization-mode ["AlwaysDeny" "AlwaysDeny"] has mode specified more than once',
    ]);
    expect(validateAuthorizationFlags({})).toEqual([]);
  });

  it('builds the chain kube-apiserver builds from the flags', () => {
    const r = authorizationConfigurationFromFlags({ modes: ['Webhook', 'AlwaysDeny'], webhookConfigFile: kubeconfig, webhookCacheAuthorizedTTL: '1m' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.authorizers.map((a) => [a.type, a.name])).toEqual([
      ['Webhook', 'webhook'],
      ['AlwaysDeny', 'alwaysdeny'],
    ]);
    expect(r.config.authorizers[0]!.webhook).toMatchObject({
      timeoutMs: 30_000,
      failurePolicy: 'NoOpinion',
      subjectAccessReviewVersion: 'v1beta1',
      authorizedTTLMs: 60_000,
      unauthorizedTTLMs: 30_000,
      connectionInfo: { type: 'PlatConfigFile', platConfigFile: kubeconfig },
    });
    const defaults = authorizationConfigurationFromFlags({});
    expect(defaults.ok && defaults.config.authorizers).toEqual([{ type: 'AlwaysAllow', name: 'alwaysallow' }]);
  });

  it('reports flag problems and file problems', () => {
    const bad = authorizationConfigurationFromFlags({ modes: ['Webhook'], webhookConfigFile: join(dir, 'missing') });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(String(bad.errors[0])).toMatch(/^authorizers\[0\]\.webhook\.connectionInfo\.platConfigFile: Invalid value: .*no such file or directory$/);
    const flags = authorizationConfigurationFromFlags({ modes: ['RBAC'] }, { supportedTypes: ['AlwaysAllow', 'Webhook'] });
    expect(flags.ok).toBe(false);
    if (!flags.ok) expect(flags.errors.map(String)).toEqual(['authorization-mode "RBAC" is not a valid mode']);
  });

  it('translates --authorization-mode=Node,RBAC,Webhook as kube-apiserver does', () => {
    const r = authorizationConfigurationFromFlags({ modes: ['Node', 'RBAC', 'Webhook'], webhookConfigFile: kubeconfig });
    expect(r.ok && r.config.authorizers.map((a) => [a.type, a.name])).toEqual([
      ['Node', 'node'],
      ['RBAC', 'rbac'],
      ['Webhook', 'webhook'],
    ]);
    expect(validateAuthorizationFlags({ modes: ['RBAC', 'Node', 'RBAC'] })).toEqual(['authorization-mode ["RBAC" "Node" "RBAC"] has mode specified more than once']);
  });
});
