import v8 from 'node:v8';
import fc from 'fast-check';
import { loadAuditPolicy, type AuditPolicyRule, type AuditStage } from '@plat/config';
import { maxCachedShapes, newPolicyRuleEvaluator, type AuditAttributes } from './policy-evaluator.js';

// The requests and rules of k8s.io/apiserver pkg/audit/policy/checker_test.go (TestChecker,
// TestCheckerPolicyOmitStages), written as our own table.
const tim = { username: 'tim@k8s.io', groups: ['humans', 'developers'] };
const requests: Record<string, AuditAttributes> = {
  namespaced: { user: tim, verb: 'get', namespace: 'default', apiGroup: '', resource: 'pods', name: 'busybox', resourceRequest: true, path: '/api/v1/namespaces/default/pods/busybox' },
  cluster: { user: tim, verb: 'get', apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'edit', resourceRequest: true, path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/edit' },
  nonResource: { user: tim, verb: 'get', resourceRequest: false, path: '/logs/kubelet.log' },
  subresource: { user: tim, verb: 'get', namespace: 'default', apiGroup: '', resource: 'pods', subresource: 'log', name: 'busybox', resourceRequest: true, path: '/api/v1/namespaces/default/pods/busybox' },
  unauthenticated: { verb: 'get', namespace: 'default', apiGroup: '', resource: 'pods', name: 'busybox', resourceRequest: true, path: '/api/v1/namespaces/default/pods/busybox' },
  clusterRoleUpdate: { user: tim, verb: 'update', apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', subresource: 'status', name: 'somerole', resourceRequest: true, path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/somerole' },
};
const rules: Record<string, AuditPolicyRule> = {
  default: { level: 'Metadata' },
  create: { level: 'Request', verbs: ['create'] },
  tims: { level: 'Metadata', users: ['tim@k8s.io'] },
  humans: { level: 'Metadata', userGroups: ['humans'] },
  serviceAccounts: { level: 'Request', userGroups: ['system:serviceaccounts'] },
  getPods: { level: 'RequestResponse', verbs: ['get'], resources: [{ resources: ['pods'] }] },
  getPodLogs: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/log'] }] },
  getPodWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*'] }] },
  getPodResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*/log'] }] },
  getPodSubResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/*'] }] },
  getClusterRoles: { level: 'RequestResponse', verbs: ['get'], resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'] }], namespaces: [''] },
  anyGroupStatusUpdate: { level: 'RequestResponse', verbs: ['update'], resources: [{ group: '*', resources: ['*/status'] }] },
  getLogs: { level: 'RequestResponse', verbs: ['get'], nonResourceURLs: ['/logs*'] },
  getMetrics: { level: 'Request', verbs: ['get'], nonResourceURLs: ['/metrics'] },
  clusterRoleEdit: { level: 'Request', resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'], resourceNames: ['edit'] }] },
  omitRequestReceived: { level: 'Request', omitStages: ['RequestReceived'] },
  onlyPanic: { level: 'Request', omitStages: ['RequestReceived', 'ResponseStarted', 'ResponseComplete'] },
};

// [request, expected level, rules in order]
const levelTable: [string, string, string[]][] = [
  ['namespaced', 'Metadata', ['default']],
  ['namespaced', 'None', ['create']],
  ['namespaced', 'Metadata', ['tims']],
  ['namespaced', 'Metadata', ['humans']],
  ['namespaced', 'None', ['serviceAccounts']],
  ['namespaced', 'RequestResponse', ['getPods']],
  ['namespaced', 'None', ['getClusterRoles']],
  ['namespaced', 'None', ['getLogs']],
  ['namespaced', 'None', ['getMetrics']],
  ['namespaced', 'Metadata', ['getMetrics', 'serviceAccounts', 'default']],
  ['namespaced', 'RequestResponse', ['getMetrics', 'getPods', 'default']],
  ['namespaced', 'RequestResponse', ['getPodLogs', 'getPods']],
  ['cluster', 'Metadata', ['default']],
  ['cluster', 'None', ['create']],
  ['cluster', 'Metadata', ['tims']],
  ['cluster', 'None', ['serviceAccounts']],
  ['cluster', 'None', ['getPods']],
  ['cluster', 'RequestResponse', ['getClusterRoles']],
  ['cluster', 'Request', ['clusterRoleEdit', 'getClusterRoles']],
  ['cluster', 'None', ['getLogs']],
  ['cluster', 'RequestResponse', ['getMetrics', 'getClusterRoles', 'default']],
  ['cluster', 'None', ['getPodLogs', 'getPods']],
  ['nonResource', 'Metadata', ['default']],
  ['nonResource', 'None', ['create']],
  ['nonResource', 'Metadata', ['humans']],
  ['nonResource', 'None', ['getPods']],
  ['nonResource', 'None', ['getClusterRoles']],
  ['nonResource', 'RequestResponse', ['getLogs']],
  ['nonResource', 'None', ['getMetrics']],
  ['nonResource', 'RequestResponse', ['getLogs', 'getClusterRoles', 'default']],
  ['subresource', 'Request', ['getPodLogs', 'getPods']],
  ['subresource', 'Request', ['getPodWildcardMatching']],
  ['subresource', 'Request', ['getPodResourceWildcardMatching']],
  ['subresource', 'Request', ['getPodSubResourceWildcardMatching']],
  ['unauthenticated', 'None', ['tims']],
  ['unauthenticated', 'Metadata', ['tims', 'default']],
  ['unauthenticated', 'None', ['humans']],
  ['unauthenticated', 'Metadata', ['humans', 'default']],
  ['clusterRoleUpdate', 'RequestResponse', ['anyGroupStatusUpdate']],
];

function evaluate(request: string, ruleNames: string[], policyStages: AuditStage[] = []) {
  return newPolicyRuleEvaluator({ omitStages: policyStages, rules: ruleNames.map((n) => rules[n]!) }).evaluate(requests[request]!);
}

describe('policy rule evaluation (checker_test.go TestChecker)', () => {
  it.each(levelTable)('%s is audited at %s under rules %j', (request, level, ruleNames) => {
    expect(evaluate(request, ruleNames).level).toBe(level);
  });

  it('keeps the policy-wide omitStages for every outcome, matched or not (TestCheckerPolicyOmitStages)', () => {
    const stages: AuditStage[] = ['RequestReceived', 'ResponseStarted'];
    for (const [request, level, ruleNames] of levelTable) {
      const out = evaluate(request, ruleNames, stages);
      expect([request, ruleNames, out.level, [...out.omitStages].sort()]).toEqual([request, ruleNames, level, [...stages].sort()]);
    }
  });

  it('unions a rule’s omitStages with the policy’s', () => {
    expect([...evaluate('namespaced', ['omitRequestReceived', 'getPods', 'default']).omitStages]).toEqual(['RequestReceived']);
    expect([...evaluate('namespaced', ['onlyPanic', 'getPods']).omitStages].sort()).toEqual(['RequestReceived', 'ResponseComplete', 'ResponseStarted']);
    expect([...evaluate('nonResource', ['omitRequestReceived'], ['ResponseStarted']).omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    // The first match decides: "default" comes first, so the rule's own stages do not apply.
    expect([...evaluate('nonResource', ['default', 'omitRequestReceived'], ['ResponseStarted']).omitStages]).toEqual(['ResponseStarted']);
  });

  it('takes omitManagedFields from the rule when it says so, else from the policy (TestOmitManagedFields)', () => {
    const policy = (ruleValue?: boolean, policyValue?: boolean) =>
      newPolicyRuleEvaluator({ omitManagedFields: policyValue, rules: [{ level: 'Metadata', ...(ruleValue === undefined ? {} : { omitManagedFields: ruleValue }) }] }).evaluate(requests.namespaced!)
        .omitManagedFields;
    expect(policy(undefined, true)).toBe(true);
    expect(policy(false, true)).toBe(false);
    expect(policy(true, false)).toBe(true);
    expect(policy(undefined, undefined)).toBe(false);
  });

  it('matches namespaces only for resource requests, with "" for cluster-scoped ones', () => {
    expect(evaluate('cluster', ['getClusterRoles']).level).toBe('RequestResponse');
    const nsRule = { level: 'Metadata' as const, namespaces: ['default'] };
    expect(newPolicyRuleEvaluator({ rules: [nsRule] }).evaluate(requests.namespaced!).level).toBe('Metadata');
    expect(newPolicyRuleEvaluator({ rules: [nsRule] }).evaluate(requests.cluster!).level).toBe('None');
    expect(newPolicyRuleEvaluator({ rules: [nsRule] }).evaluate(requests.nonResource!).level).toBe('None');
  });
});

describe('outcomes remembered by request shape', () => {
  const verbs = ['get', 'list', 'create', 'update'];
  const groups = ['', 'certificates.plat.io', 'rbac.authorization.k8s.io'];
  const resources = ['pods', 'clustertrustbundles', 'clusterroles'];
  const subresources = ['', 'status', 'log'];
  const attrs = fc.record({
    user: fc.option(fc.record({ username: fc.constantFrom('alice', 'bob'), groups: fc.subarray(['admins', 'humans']) }), { nil: undefined }),
    verb: fc.constantFrom(...verbs),
    resourceRequest: fc.boolean(),
    apiGroup: fc.constantFrom(...groups),
    resource: fc.constantFrom(...resources),
    subresource: fc.constantFrom(...subresources),
    namespace: fc.constantFrom('', 'default', 'kube-system'),
    name: fc.constantFrom('', 'a', 'edit'),
    path: fc.constantFrom('/healthz', '/logs/x', '/apis'),
  });
  const rule = fc.record(
    {
      level: fc.constantFrom('None', 'Metadata', 'Request', 'RequestResponse'),
      verbs: fc.subarray(verbs),
      resources: fc.array(fc.record({ group: fc.constantFrom(...groups, '*'), resources: fc.subarray(['pods', 'pods/log', '*/status', 'clusterroles', 'clusterroles/*', '*']) }), { maxLength: 2 }),
      nonResourceURLs: fc.subarray(['/healthz', '/logs*', '*']),
      // Rules that look at who asks, where or at which object: the outcome is then never remembered by shape.
      users: fc.subarray(['alice']),
      userGroups: fc.subarray(['humans']),
      namespaces: fc.subarray(['default', '']),
      omitStages: fc.subarray(['RequestReceived', 'ResponseStarted'] as AuditStage[]),
    },
    { requiredKeys: ['level'] },
  ) as fc.Arbitrary<AuditPolicyRule>;

  it('gives every request what walking the rules gives it, whatever came before (property)', () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), fc.array(attrs, { minLength: 1, maxLength: 30 }), (policyRules, seen) => {
        const longLived = newPolicyRuleEvaluator({ rules: policyRules });
        for (const a of seen) {
          const remembered = longLived.evaluate(a);
          const walked = newPolicyRuleEvaluator({ rules: policyRules }).evaluate(a);
          expect([remembered.level, remembered.omitManagedFields, [...remembered.omitStages].sort()]).toEqual([walked.level, walked.omitManagedFields, [...walked.omitStages].sort()]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never gives one user another's level when rules name users or groups", () => {
    const evaluator = newPolicyRuleEvaluator({ rules: [{ level: 'RequestResponse', users: ['alice'] }, { level: 'None', userGroups: ['quiet'] }, { level: 'Metadata' }] });
    const get = (user: AuditAttributes['user']) => evaluator.evaluate({ ...requests.cluster!, user }).level;
    expect([get({ username: 'alice' }), get({ username: 'bob', groups: ['quiet'] }), get({ username: 'bob' }), get({ username: 'alice' }), get(undefined)]).toEqual([
      'RequestResponse',
      'None',
      'Metadata',
      'RequestResponse',
      'Metadata',
    ]);
  });

  it('stays right past its bound', () => {
    const evaluator = newPolicyRuleEvaluator({ rules: [{ level: 'None', resources: [{ group: '', resources: ['secrets'] }] }, { level: 'Metadata' }] });
    for (let i = 0; i < maxCachedShapes + 10; i++) expect(evaluator.evaluate({ ...requests.cluster!, resource: `r${i}` }).level).toBe('Metadata');
    expect(evaluator.evaluate({ ...requests.cluster!, apiGroup: '', resource: 'secrets' }).level).toBe('None');
    expect(evaluator.evaluate({ ...requests.cluster!, apiGroup: '', resource: 'secrets' }).level).toBe('None');
  });
});

describe('levels of a policy file', () => {
  it('are one-byte strings even when the file is not ASCII, so that events encode one-byte', () => {
    const loaded = loadAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\n# Lectures — tout le reste\nrules:\n- level: Metadata\n');
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const level = newPolicyRuleEvaluator(loaded.config).evaluate(requests.cluster!).level;
    expect(level).toBe('Metadata');
    // V8's serializer tags a one-byte string '"' and a two-byte one 'c'.
    const tag = (s: string) => String.fromCharCode(v8.serialize(s)[2]!);
    expect(tag(level)).toBe('"');
  });
});
