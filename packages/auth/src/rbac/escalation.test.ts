import type { ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding, Subject } from '@plat/api-model';
import { createAuthorizerChain } from '../authorizer-chain.js';
import { createBuiltinAuthorizer } from '../builtin-authorizer.js';
import type { UserInfo } from '../interface.js';
import { checkBindingEscalation, checkRoleEscalation, confirmNoEscalation, type EscalationCheckContext, type RbacRequest } from './escalation.js';
import { compactRuleString, compactRules, covers } from './policy-comparator.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacPolicyStore } from './rule-source.js';

const k8s = 'rbac.authorization.k8s.io';
const plat = 'rbac.authorization.plat.io';

describe('covers (Kubernetes Covers)', () => {
  // [case, owner rules, servant rules, covered]
  const table: [string, PolicyRule[], PolicyRule[], boolean][] = [
    ['everything covers anything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get', 'delete'], apiGroups: ['x.io'], resources: ['a', 'a/status'], resourceNames: ['n'] }], true],
    ['more verbs cover fewer', [{ verbs: ['get', 'list', 'watch'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get', 'watch'], apiGroups: ['x.io'], resources: ['a'] }], true],
    ['a missing verb', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get', 'list'], apiGroups: ['x.io'], resources: ['a'] }], false],
    ['rules combine across owner rules', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }, { verbs: ['list'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get', 'list'], apiGroups: ['x.io'], resources: ['a'] }], true],
    ['another group', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get'], apiGroups: ['y.io'], resources: ['a'] }], false],
    ['a resource does not cover its subresource', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a/status'] }], false],
    ['*/subresource covers it', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a/status'] }], true],
    ['a subresource does not cover the resource', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a/status'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], false],
    ['a named rule does not cover every name', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'], resourceNames: ['n'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], false],
    ['a named rule covers its names', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'], resourceNames: ['n', 'm'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'], resourceNames: ['m'] }], true],
    ['an unnamed rule covers every name', [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'], resourceNames: ['m'] }], true],
    ['a URL prefix covers the URLs under it', [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/x.io', '/apis/y.io/v1'] }], true],
    ['a URL does not cover the URLs under it', [{ verbs: ['get'], nonResourceURLs: ['/apis'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/x.io'] }], false],
    ['resource rules do not cover URLs', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], false],
    ['the two names of the RBAC group are one', [{ verbs: ['get'], apiGroups: [k8s], resources: ['roles'] }], [{ verbs: ['get'], apiGroups: [plat], resources: ['roles'] }], true],
    ['nothing to grant is always covered', [], [], true],
  ];

  it.each(table)('%s', (_name, owner, servant, covered) => {
    expect(covers(owner, servant).covers).toBe(covered);
  });

  it('lists what is missing, one verb, resource and name at a time', () => {
    const { missing } = covers([{ verbs: ['get'], apiGroups: ['x.io'], resources: ['a'] }], [{ verbs: ['get', 'list'], apiGroups: ['x.io'], resources: ['a', 'b'], resourceNames: ['n'] }]);
    expect(missing).toEqual([
      { apiGroups: ['x.io'], resources: ['a'], verbs: ['list'], resourceNames: ['n'] },
      { apiGroups: ['x.io'], resources: ['b'], verbs: ['get'], resourceNames: ['n'] },
      { apiGroups: ['x.io'], resources: ['b'], verbs: ['list'], resourceNames: ['n'] },
    ]);
  });

  it('compacts simple rules per group and resource, and prints them as Kubernetes does', () => {
    const compacted = compactRules([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { apiGroups: ['certificates.plat.io'], resources: ['signers'], verbs: ['attest'], resourceNames: ['example.com/*'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]);
    expect(compacted.map(compactRuleString)).toEqual([
      '{APIGroups:["certificates.plat.io"], Resources:["signers"], ResourceNames:["example.com/*"], Verbs:["attest"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    ]);
  });
});

const crb = (name: string, role: string, subjects: Subject[]): ClusterRoleBinding => ({ metadata: { name }, roleRef: { apiGroup: plat, kind: 'ClusterRole', name: role }, subjects });
const rb = (ns: string, name: string, kind: string, role: string, subjects: Subject[]): RoleBinding => ({
  metadata: { namespace: ns, name },
  roleRef: { apiGroup: plat, kind, name: role },
  subjects,
});
const userSubject = (name: string): Subject => ({ kind: 'User', apiGroup: plat, name });
const cr = (name: string, rules: PolicyRule[], extra: Partial<ClusterRole> = {}): ClusterRole => ({ metadata: { name }, rules, ...extra });

const configRules: PolicyRule[] = [{ verbs: ['get', 'update', 'delete'], apiGroups: ['example.io'], resources: ['configs'] }];

function setup() {
  const store = new RbacPolicyStore({
    clusterRoles: [
      cr('config-admin', configRules),
      cr('config-reader', [{ verbs: ['get'], apiGroups: ['example.io'], resources: ['configs'] }]),
      cr('everything', [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ]),
      cr('role-escalator', [{ verbs: ['escalate'], apiGroups: [k8s], resources: ['clusterroles'] }]),
      cr('binder', [{ verbs: ['bind'], apiGroups: [k8s], resources: ['clusterroles'], resourceNames: ['config-admin'] }]),
    ],
    clusterRoleBindings: [
      crb('readers', 'config-reader', [userSubject('bob'), userSubject('carl'), userSubject('erin'), userSubject('gus')]),
      crb('admins', 'config-admin', [userSubject('ann')]),
      crb('root', 'everything', [userSubject('root')]),
      crb('escalators', 'role-escalator', [userSubject('erin')]),
      crb('binders', 'binder', [userSubject('carl')]),
      crb('ghost', 'no-such-role', [userSubject('gus')]),
    ],
    roleBindings: [rb('team-a', 'local-admin', 'ClusterRole', 'config-admin', [userSubject('bob')]), rb('team-a', 'local-binder', 'ClusterRole', 'binder', [userSubject('gus')])],
  });
  const authorizer = createAuthorizerChain([createBuiltinAuthorizer(), new RbacAuthorizer(store)]);
  const ctx = (username: string, ...groups: string[]): EscalationCheckContext => {
    const user: UserInfo = { username, groups: [...groups, 'system:authenticated'] };
    return { resolver: new RbacAuthorizer(store).resolver, authorizer, user };
  };
  return { ctx };
}

const clusterRoles = (name = ''): RbacRequest => ({ apiGroup: k8s, resource: 'clusterroles', namespace: '', name });
const roles = (namespace: string): RbacRequest => ({ apiGroup: plat, resource: 'roles', namespace, name: '' });

describe('checkRoleEscalation', () => {
  const { ctx } = setup();
  const wanted = cr('new-admin', configRules);

  it('lets a user grant what it holds and system:masters anything', async () => {
    expect(await checkRoleEscalation(ctx('ann'), clusterRoles(), wanted)).toBeUndefined();
    expect(await checkRoleEscalation(ctx('nobody', 'system:masters'), clusterRoles(), cr('x', [{ verbs: ['*'], nonResourceURLs: ['*'] }]))).toBeUndefined();
  });

  it('refuses permissions the user does not hold with Kubernetes\' 403', async () => {
    const err = await checkRoleEscalation(ctx('carl', 'devs'), clusterRoles(), wanted);
    expect(err?.status.code).toBe(403);
    expect(err?.status.reason).toBe('Forbidden');
    expect(err?.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "new-admin" is forbidden: user "carl" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["example.io"], Resources:["configs"], Verbs:["update" "delete"]}',
    );
  });

  it('counts rules bound in the role\'s namespace, and only there', async () => {
    const role = { metadata: { name: 'ops', namespace: 'team-a' }, rules: configRules };
    expect(await checkRoleEscalation(ctx('bob'), roles('team-a'), role)).toBeUndefined();
    const err = await checkRoleEscalation(ctx('bob'), roles('team-b'), { ...role, metadata: { name: 'ops', namespace: 'team-b' } });
    expect(err?.message).toMatch(/^roles\.rbac\.authorization\.plat\.io "ops" is forbidden: user "bob"/);
  });

  it('lets a user with escalate on cluster roles grant anything', async () => {
    expect(await checkRoleEscalation(ctx('erin'), clusterRoles(), cr('wide', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]))).toBeUndefined();
    // escalate on clusterroles says nothing about roles.
    expect(await checkRoleEscalation(ctx('erin'), roles('team-a'), { metadata: { name: 'r', namespace: 'team-a' }, rules: configRules })).toBeDefined();
  });

  it('requires every permission to set, change or drop an aggregationRule', async () => {
    const aggregated = cr('agg', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
    const err = await checkRoleEscalation(ctx('ann'), clusterRoles('agg'), aggregated);
    expect(err?.message).toBe('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    expect((await checkRoleEscalation(ctx('ann'), clusterRoles('agg'), cr('agg', []), aggregated))?.message).toMatch(/aggregationRule$/);
    expect(await checkRoleEscalation(ctx('root'), clusterRoles('agg'), aggregated)).toBeUndefined();
  });
});

describe('checkBindingEscalation', () => {
  const { ctx } = setup();
  const clusterBinding = (role: string): ClusterRoleBinding => crb('grant', role, [userSubject('someone')]);
  const crbRequest: RbacRequest = { apiGroup: plat, resource: 'clusterrolebindings', namespace: '', name: '' };
  const rbRequest = (namespace: string): RbacRequest => ({ apiGroup: k8s, resource: 'rolebindings', namespace, name: '' });

  it('lets a user bind a role whose permissions it holds', async () => {
    expect(await checkBindingEscalation(ctx('ann'), crbRequest, clusterBinding('config-reader'))).toBeUndefined();
  });

  it('refuses binding a role with more permissions', async () => {
    const err = await checkBindingEscalation(ctx('bob'), crbRequest, clusterBinding('config-admin'));
    expect(err?.message).toBe(
      'clusterrolebindings.rbac.authorization.plat.io "grant" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["example.io"], Resources:["configs"], Verbs:["update" "delete"]}',
    );
    // In team-a bob holds config-admin through a RoleBinding: binding it there is fine.
    expect(await checkBindingEscalation(ctx('bob'), rbRequest('team-a'), rb('team-a', 'grant', 'ClusterRole', 'config-admin', []))).toBeUndefined();
  });

  it('lets the bind verb on the role stand in for its permissions, where it is granted', async () => {
    expect(await checkBindingEscalation(ctx('carl'), crbRequest, clusterBinding('config-admin'))).toBeUndefined();
    expect(await checkBindingEscalation(ctx('carl'), crbRequest, clusterBinding('everything'))).toBeDefined();
    // gus may bind config-admin in team-a only (a RoleBinding to the binder ClusterRole).
    expect(await checkBindingEscalation(ctx('gus'), rbRequest('team-a'), rb('team-a', 'g', 'ClusterRole', 'config-admin', []))).toBeUndefined();
    expect(await checkBindingEscalation(ctx('gus'), rbRequest('team-b'), rb('team-b', 'g', 'ClusterRole', 'config-admin', []))).toBeDefined();
  });

  it('answers 404 for a role that does not exist', async () => {
    const err = await checkBindingEscalation(ctx('bob'), rbRequest('team-a'), rb('team-a', 'g', 'Role', 'nope', []));
    expect(err?.status.code).toBe(404);
    expect(err?.message).toBe('roles.rbac.authorization.k8s.io "nope" not found');
  });

  it('lets system:masters bind anything, even a role that does not exist yet', async () => {
    expect(await checkBindingEscalation(ctx('x', 'system:masters'), crbRequest, clusterBinding('not-yet'))).toBeUndefined();
  });

  it('adds the roles it could not resolve to the message', async () => {
    const { resolver, user } = ctx('gus');
    expect(confirmNoEscalation(resolver, user, '', configRules)).toBe(
      'user "gus" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["example.io"], Resources:["configs"], Verbs:["update" "delete"]}; resolution errors: [clusterrole.rbac.authorization.plat.io "no-such-role" not found]',
    );
  });
});
