import { loadAuditPolicy } from './audit-policy.js';

const header = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';
function errorsOf(yaml: string): string[] {
  const r = loadAuditPolicy(header + yaml);
  return r.ok ? [] : r.errors.map(String);
}

// Messages and paths as k8s.io/apiserver pkg/apis/audit/validation/validation_test.go
// (TestValidatePolicy) expects them.
describe('audit Policy', () => {
  it('loads a Kubernetes policy file and the same file as audit.plat.io/v1', () => {
    const body = 'omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: certificates.plat.io\n    resources: [clustertrustbundles]\n  omitManagedFields: true\n';
    const k8s = loadAuditPolicy(header + body);
    expect(k8s).toEqual({
      ok: true,
      warnings: [],
      config: {
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        omitStages: ['RequestReceived'],
        rules: [{ level: 'Metadata', resources: [{ group: 'certificates.plat.io', resources: ['clustertrustbundles'] }], omitManagedFields: true }],
      },
    });
    const plat = loadAuditPolicy(`apiVersion: audit.plat.io/v1\nkind: Policy\n${body}`);
    expect(plat.ok && plat.config.apiVersion).toBe('audit.plat.io/v1');
  });

  it('accepts metadata as a policy file carries it', () => {
    expect(errorsOf('metadata:\n  name: default\nrules:\n- level: None\n')).toEqual([]);
  });

  it('refuses other apiVersions and kinds', () => {
    expect(loadAuditPolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n')).toMatchObject({
      ok: false,
    });
    const r = loadAuditPolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n');
    expect(r.ok ? [] : r.errors.map(String)).toEqual(['apiVersion: Unsupported value: "audit.k8s.io/v1beta1": supported values: "audit.plat.io/v1", "audit.k8s.io/v1"']);
    const k = loadAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: AuditPolicy\nrules: [{level: None}]\n');
    expect(k.ok ? [] : k.errors.map(String)).toEqual(['kind: Invalid value: "AuditPolicy": must be "Policy"']);
  });

  it('refuses a missing or unknown level', () => {
    expect(errorsOf('rules:\n- level: Everything\n- verbs: [get]\n')).toEqual([
      'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
      'rules[1].level: Required value',
    ]);
  });

  it('refuses unknown stages, policy-wide and per rule', () => {
    expect(errorsOf('omitStages: [Done]\nrules:\n- level: None\n  omitStages: [RequestReceived, Started]\n')).toEqual([
      'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
      'rules[0].omitStages[1]: Invalid value: "Started": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
    ]);
  });

  it('checks non-resource URLs: a leading slash, a wildcard only at the end, not mixed with resources', () => {
    expect(errorsOf('rules:\n- level: None\n  nonResourceURLs: ["*", "/healthz*", "healthz", "/api/*/x"]\n')).toEqual([
      'rules[0].nonResourceURLs[2]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character',
      "rules[0].nonResourceURLs[3]: Invalid value: \"/api/*/x\": non-resource URL wildcards '*' must be the final character of the rule",
    ]);
    expect(errorsOf('rules:\n- level: None\n  nonResourceURLs: ["/metrics"]\n  namespaces: [""]\n')).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it('checks resource groups and resourceNames', () => {
    expect(errorsOf('rules:\n- level: None\n  resources:\n  - group: rbac.authorization.k8s.io/v1\n  - group: "*"\n  - resourceNames: [a]\n')).toEqual([
      expect.stringMatching(/^rules\[0\]\.resources\.group: Invalid value: "rbac\.authorization\.k8s\.io\/v1": a lowercase RFC 1123 subdomain/),
      'rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource',
    ]);
  });

  it('refuses unknown fields and a policy without rules', () => {
    expect(errorsOf('rules:\n- level: None\n  user: [a]\n')).toEqual(['unknown field "rules[0].user"']);
    expect(errorsOf('rules: []\n')).toEqual(['rules: Required value: a policy needs at least one rule']);
    expect(loadAuditPolicy('')).toMatchObject({ ok: false });
  });
});

describe('the recommended policy of docs/audit.md', () => {
  it('is a valid Policy', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../../docs/audit.md', import.meta.url), 'utf8');
    const yaml = /### Recommended policy[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(yaml).toBeDefined();
    const r = loadAuditPolicy(yaml!);
    expect(r.ok ? [] : r.errors.map(String)).toEqual([]);
    expect(r.ok && r.config.rules.map((rule) => rule.level)).toEqual(['None', 'RequestResponse', 'Metadata', 'Metadata']);
  });
});
