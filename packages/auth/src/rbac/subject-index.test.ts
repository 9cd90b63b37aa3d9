import fc from 'fast-check';
import type { ClusterRole, PolicyRule, Role, RoleBinding, Subject } from '@plat/api-model';
import type { Attributes, AuthorizationResult, UserInfo } from '../interface.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacRuleResolver, describeRuleOrigin, type RuleOrigin } from './rule-resolver.js';
import { ruleAllows } from './rule-matching.js';
import { RbacPolicyStore, type RbacRuleSource } from './rule-source.js';

/**
 * The indexed authorizer must decide exactly as Kubernetes' plain scan does: every cluster role
 * binding, then every role binding of the namespace, each in name order, the first subject that
 * applies, the referenced role's rules. This scan is written from Kubernetes' rule.go without
 * the index.
 */
function naiveAppliesTo(user: UserInfo, s: Subject, namespace: string): boolean {
  if (s.kind === 'User') return user.username === (s.name ?? '');
  if (s.kind === 'Group') return user.groups.includes(s.name ?? '');
  if (s.kind !== 'ServiceAccount') return false;
  const ns = s.namespace ? s.namespace : namespace;
  return ns !== '' && user.username === `system:serviceaccount:${ns}:${s.name ?? ''}`;
}

/** Every rule the plain scan meets for the user in the namespace, and the errors, in its order. */
function naiveRules(source: RbacRuleSource, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  const probe = { user, verb: '', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace, name: '', path: '' };
  naiveScan(source, probe, (rule) => void rules.push(rule), (e) => void errors.push(e));
  return { rules, errors };
}

function naiveDecision(source: RbacRuleSource, attrs: Attributes): AuthorizationResult {
  const errors: string[] = [];
  const allowed = naiveScan(source, attrs, (rule) => ruleAllows(attrs, rule), (e) => void errors.push(e));
  if (allowed) return { decision: 'Allow', reason: `RBAC: allowed by ${describeRuleOrigin(allowed)}` };
  const unique = [...new Set(errors)];
  const reason = unique.length === 0 ? '' : unique.length === 1 ? `RBAC: ${unique[0]}` : `RBAC: [${unique.join(', ')}]`;
  return { decision: 'NoOpinion', reason };
}

/** Kubernetes' VisitRulesFor without an index; stops at the first rule `onRule` answers true for. */
function naiveScan(
  source: RbacRuleSource,
  attrs: Attributes,
  onRule: (rule: PolicyRule) => boolean | void,
  onError: (message: string) => void,
): RuleOrigin | undefined {
  const clusterRoles = [...source.listClusterRoles()];
  const roles = [...source.listRoles()];
  const sortByName = (list: RoleBinding[]) => list.sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const scopes: [RoleBinding[], string, 'ClusterRoleBinding' | 'RoleBinding'][] = [[sortByName([...source.listClusterRoleBindings()]), '', 'ClusterRoleBinding']];
  if (attrs.namespace) {
    scopes.push([sortByName([...source.listRoleBindings()].filter((b) => b.metadata?.namespace === attrs.namespace)), attrs.namespace, 'RoleBinding']);
  }
  for (const [bindings, ns, kind] of scopes) {
    for (const binding of bindings) {
      const subject = (binding.subjects ?? []).find((s) => naiveAppliesTo(attrs.user, s, ns));
      if (!subject) continue;
      const ref = binding.roleRef ?? {};
      let rules: PolicyRule[] | null | undefined;
      if (ref.kind === 'ClusterRole') {
        const r = clusterRoles.find((c) => c.metadata?.name === ref.name);
        if (!r) onError(`clusterrole.rbac.authorization.plat.io "${ref.name}" not found`);
        rules = r?.rules ?? (r ? [] : undefined);
      } else if (ref.kind === 'Role') {
        const r = roles.find((c) => c.metadata?.name === ref.name && c.metadata?.namespace === ns);
        if (!r) onError(`role.rbac.authorization.plat.io "${ref.name}" not found`);
        rules = r?.rules ?? (r ? [] : undefined);
      } else {
        onError(`unsupported role reference kind: "${ref.kind}"`);
      }
      for (const rule of rules ?? []) if (onRule(rule)) return { kind, binding, subject };
    }
  }
  return undefined;
}

const usernames = ['u1', 'u2', 'system:serviceaccount:ns1:sa1', 'system:serviceaccount:ns2:sa1', 'system:serviceaccount:ns1:sa2'];
const groupNames = ['g1', 'g2', 'system:authenticated', 'system:serviceaccounts', 'system:serviceaccounts:ns1'];
const namespaces = ['ns1', 'ns2'];
const roleNames = ['r1', 'r2', 'r3'];
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const someOf = <T>(values: readonly T[]) => fc.subarray([...values]);

const rule: fc.Arbitrary<PolicyRule> = fc.oneof(
  fc.record({
    verbs: someOf(['get', 'list', 'attest', '*']),
    apiGroups: someOf(['', 'x.io', '*', 'rbac.authorization.k8s.io', 'rbac.authorization.plat.io']),
    resources: someOf(['a', 'b', 'a/status', '*', '*/status', 'roles']),
    resourceNames: someOf(['n1', 'n2']),
  }),
  fc.record({ verbs: someOf(['get', '*']), nonResourceURLs: someOf(['/healthz', '/api/*', '*']) }),
);

const subject: fc.Arbitrary<Subject> = fc.record({
  kind: pick(['User', 'Group', 'ServiceAccount', 'Robot']),
  name: pick(['u1', 'u2', 'g1', 'g2', 'sa1', 'sa2', 'system:authenticated', 'system:serviceaccounts', '']),
  namespace: pick(['', 'ns1', 'ns2']),
});

const binding = (ns: string | undefined): fc.Arbitrary<RoleBinding> =>
  fc.record({
    metadata: fc.record({ name: pick(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']), ...(ns === undefined ? {} : { namespace: pick(namespaces) }) }),
    roleRef: fc.record({ apiGroup: fc.constant('rbac.authorization.k8s.io'), kind: ns === undefined ? fc.constant('ClusterRole') : pick(['Role', 'ClusterRole', 'Bogus']), name: pick([...roleNames, 'missing']) }),
    subjects: fc.array(subject, { maxLength: 4 }),
  });

const policy = fc.record({
  clusterRoles: fc.array(fc.record({ metadata: fc.record({ name: pick(roleNames) }), rules: fc.array(rule, { maxLength: 3 }) }), { maxLength: 4 }),
  roles: fc.array(fc.record({ metadata: fc.record({ name: pick(roleNames), namespace: pick(namespaces) }), rules: fc.array(rule, { maxLength: 3 }) }), { maxLength: 4 }),
  clusterRoleBindings: fc.array(binding(undefined), { maxLength: 6 }),
  roleBindings: fc.array(binding('ns'), { maxLength: 6 }),
});

const attributes: fc.Arbitrary<Attributes> = fc.record({
  user: fc.record({ username: pick(usernames), groups: someOf(groupNames) }),
  verb: pick(['get', 'list', 'attest', 'delete']),
  resourceRequest: fc.boolean(),
  apiGroup: pick(['', 'x.io', 'rbac.authorization.k8s.io', 'rbac.authorization.plat.io']),
  apiVersion: fc.constant('v1'),
  resource: pick(['a', 'b', 'roles']),
  subresource: pick(['', 'status']),
  namespace: pick(['', ...namespaces]),
  name: pick(['', 'n1', 'n2']),
  path: pick(['/healthz', '/api/v1', '/version']),
});

describe('the subject index', () => {
  it('decides and lists rules as a plain scan of every binding does, reasons and order included', async () => {
    await fc.assert(
      fc.asyncProperty(policy, fc.array(attributes, { minLength: 1, maxLength: 8 }), async (objects, requests) => {
        const store = new RbacPolicyStore(objects as { clusterRoles: ClusterRole[]; roles: Role[]; clusterRoleBindings: RoleBinding[]; roleBindings: RoleBinding[] });
        const authorizer = new RbacAuthorizer(store);
        const resolver = new RbacRuleResolver(store);
        for (const attrs of requests) {
          expect(await authorizer.authorize(attrs)).toEqual(naiveDecision(store, attrs));
          const { rules, errors } = resolver.rulesFor(attrs.user, attrs.namespace);
          expect({ rules, errors: errors.map((e) => e.message) }).toEqual(naiveRules(store, attrs.user, attrs.namespace));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stays in step with a source that changes between decisions', async () => {
    await fc.assert(
      fc.asyncProperty(policy, fc.array(fc.tuple(binding(undefined), attributes), { minLength: 1, maxLength: 5 }), async (objects, steps) => {
        const store = new RbacPolicyStore(objects as { clusterRoles: ClusterRole[]; clusterRoleBindings: RoleBinding[] });
        const authorizer = new RbacAuthorizer(store);
        for (const [added, attrs] of steps) {
          store.upsert('ClusterRoleBinding', added);
          expect(await authorizer.authorize(attrs)).toEqual(naiveDecision(store, attrs));
        }
      }),
      { numRuns: 100 },
    );
  });
});
