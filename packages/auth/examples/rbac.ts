import * as assert from 'node:assert/strict';
import { RbacAuthorizer, RbacPolicyStore, checkBindingEscalation, createAuthorizerChain, createBuiltinAuthorizer, type Attributes, type UserInfo } from '@plat/auth';

// Roles and bindings as a watch delivers them (here: one ClusterRole for a signer domain, bound to a group).
const policy = new RbacPolicyStore({
  clusterRoles: [
    {
      metadata: { name: 'example-com-publisher' },
      rules: [
        { verbs: ['attest'], apiGroups: ['certificates.plat.io'], resources: ['signers'], resourceNames: ['example.com/*'] },
        { verbs: ['create', 'update', 'patch'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] },
      ],
    },
  ],
  clusterRoleBindings: [
    {
      metadata: { name: 'publishers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'example-com-publisher' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'pki-team' }],
    },
  ],
});
// Keep it current: policy.upsert(kind, obj) on ADDED/MODIFIED, policy.delete(kind, obj) on DELETED,
// policy.replace(kind, items) after a re-list.
const rbac = new RbacAuthorizer(policy);
const authorizer = createAuthorizerChain([
  { name: 'builtin', authorizer: createBuiltinAuthorizer() },
  { name: 'rbac', authorizer: rbac },
]);

const ada: UserInfo = { username: 'ada', groups: ['pki-team', 'system:authenticated'] };
const attest = (name: string): Attributes => ({
  user: ada,
  verb: 'attest',
  resourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: '*',
  resource: 'signers',
  subresource: '',
  namespace: '',
  name,
  path: '',
});
// The ClusterTrustBundle admission asks for the signer, then for `<domain>/*`.
assert.equal((await authorizer.authorize(attest('example.com/roots'))).decision, 'NoOpinion');
assert.deepEqual(await authorizer.authorize(attest('example.com/*')), {
  decision: 'Allow',
  reason: 'RBAC: allowed by ClusterRoleBinding "publishers" of ClusterRole "example-com-publisher" to Group "pki-team"',
});

// SelfSubjectRulesReview (kubectl auth can-i --list) answers from rulesFor.
assert.equal(rbac.rulesFor(ada, '').resourceRules.length, 2);

// Escalation prevention, as a binding strategy's admission runs it: ada may not grant a role she does not hold.
policy.upsert('ClusterRole', { metadata: { name: 'cluster-admin' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
const binding = {
  metadata: { name: 'ada-admin' },
  roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'ada' }],
};
const request = { apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', namespace: '', name: '' };
const error = await checkBindingEscalation({ resolver: rbac.resolver, authorizer, user: ada }, request, binding);
assert.equal(error?.status.code, 403);
console.log(error?.message);
// clusterrolebindings.rbac.authorization.k8s.io "ada-admin" is forbidden: user "ada" (groups=["pki-team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
// {APIGroups:["*"], Resources:["*"], Verbs:["*"]}
