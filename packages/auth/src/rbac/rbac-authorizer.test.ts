import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from '@plat/api-model';
import type { Attributes, UserInfo } from '../interface.js';
import { RbacAuthorizer, decisionCacheSize } from './rbac-authorizer.js';
import { RbacPolicyStore } from './rule-source.js';

const k8s = 'rbac.authorization.k8s.io';
const ctb = 'certificates.plat.io';

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });
const sa = (ns: string, name: string): UserInfo => user(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${ns}`);

function request(u: UserInfo, verb: string, apiGroup: string, resource: string, namespace = '', name = ''): Attributes {
  return { user: u, verb, resourceRequest: true, apiGroup, apiVersion: 'v1', resource, subresource: '', namespace, name, path: '' };
}

const clusterRole = (name: string, rules: ClusterRole['rules']): ClusterRole => ({ metadata: { name }, rules });
const role = (namespace: string, name: string, rules: Role['rules']): Role => ({ metadata: { namespace, name }, rules });
const userSubject = (name: string): Subject => ({ kind: 'User', apiGroup: k8s, name });
const groupSubject = (name: string): Subject => ({ kind: 'Group', apiGroup: k8s, name });
const crb = (name: string, roleName: string, subjects: Subject[]): ClusterRoleBinding => ({
  metadata: { name },
  roleRef: { apiGroup: k8s, kind: 'ClusterRole', name: roleName },
  subjects,
});
const rb = (namespace: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: Subject[]): RoleBinding => ({
  metadata: { namespace, name },
  roleRef: { apiGroup: k8s, kind, name: roleName },
  subjects,
});

const readBundles = [{ verbs: ['get', 'list', 'watch'], apiGroups: [ctb], resources: ['clustertrustbundles'] }];
const attestExample = [{ verbs: ['attest'], apiGroups: [ctb], resources: ['signers'], resourceNames: ['example.com/*'] }];
const readConfig = [{ verbs: ['get'], apiGroups: ['example.io'], resources: ['configs'] }];

function fixture() {
  return new RbacPolicyStore({
    clusterRoles: [clusterRole('bundle-reader', readBundles), clusterRole('example-attester', attestExample), clusterRole('config-reader', readConfig)],
    clusterRoleBindings: [
      crb('alice-reads', 'bundle-reader', [userSubject('alice')]),
      crb('publishers', 'example-attester', [groupSubject('example-publishers')]),
      crb('ci-reads', 'bundle-reader', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }]),
      crb('dangling', 'no-such-role', [userSubject('dave')]),
    ],
    roles: [role('team-a', 'config-writer', [{ verbs: ['update'], apiGroups: ['example.io'], resources: ['configs'] }])],
    roleBindings: [
      rb('team-a', 'writers', 'Role', 'config-writer', [userSubject('bob')]),
      rb('team-a', 'readers', 'ClusterRole', 'config-reader', [{ kind: 'ServiceAccount', name: 'app' }, groupSubject('team-a-devs')]),
      rb('team-a', 'missing', 'Role', 'gone', [userSubject('dave')]),
    ],
  });
}

describe('RbacAuthorizer', () => {
  const authorizer = new RbacAuthorizer(fixture());

  it('allows through a ClusterRoleBinding to a user, with Kubernetes\' reason', async () => {
    expect(await authorizer.authorize(request(user('alice'), 'list', ctb, 'clustertrustbundles'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "bundle-reader" to User "alice"',
    });
  });

  it('has no opinion, never Deny, when no rule covers the request', async () => {
    expect(await authorizer.authorize(request(user('alice'), 'delete', ctb, 'clustertrustbundles', '', 'x'))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await authorizer.authorize(request(user('nobody'), 'get', ctb, 'clustertrustbundles'))).toEqual({ decision: 'NoOpinion', reason: '' });
  });

  it('answers the attest check for a whole signer domain as the admission asks it', async () => {
    const carol = user('carol', 'example-publishers');
    // The admission asks for the exact signer first, then for `<domain>/*`.
    expect((await authorizer.authorize(request(carol, 'attest', ctb, 'signers', '', 'example.com/foo'))).decision).toBe('NoOpinion');
    expect(await authorizer.authorize(request(carol, 'attest', ctb, 'signers', '', 'example.com/*'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "publishers" of ClusterRole "example-attester" to Group "example-publishers"',
    });
    expect((await authorizer.authorize(request(carol, 'attest', ctb, 'signers', '', 'other.com/*'))).decision).toBe('NoOpinion');
  });

  it('matches service accounts by username, with the namespace Kubernetes prints after the name', async () => {
    expect(await authorizer.authorize(request(sa('ci', 'builder'), 'watch', ctb, 'clustertrustbundles'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "ci-reads" of ClusterRole "bundle-reader" to ServiceAccount "builder/ci"',
    });
    expect((await authorizer.authorize(request(sa('other', 'builder'), 'watch', ctb, 'clustertrustbundles'))).decision).toBe('NoOpinion');
  });

  it('applies a RoleBinding only in its namespace, also when it references a ClusterRole', async () => {
    expect(await authorizer.authorize(request(user('bob'), 'update', 'example.io', 'configs', 'team-a', 'c'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "writers/team-a" of Role "config-writer" to User "bob"',
    });
    expect((await authorizer.authorize(request(user('bob'), 'update', 'example.io', 'configs', 'team-b', 'c'))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(request(user('bob'), 'update', 'example.io', 'configs', '', 'c'))).decision).toBe('NoOpinion');
    // A service account subject without a namespace is one of the binding's namespace.
    expect(await authorizer.authorize(request(sa('team-a', 'app'), 'get', 'example.io', 'configs', 'team-a'))).toEqual({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "readers/team-a" of ClusterRole "config-reader" to ServiceAccount "app/team-a"',
    });
    expect((await authorizer.authorize(request(user('eve', 'team-a-devs'), 'get', 'example.io', 'configs', 'team-b'))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(request(user('eve', 'team-a-devs'), 'get', 'example.io', 'configs', 'team-a'))).decision).toBe('Allow');
  });

  it('reports the roles it could not find, as Kubernetes\' listers word it, and still has no opinion', async () => {
    expect(await authorizer.authorize(request(user('dave'), 'get', ctb, 'clustertrustbundles'))).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.plat.io "no-such-role" not found',
    });
    expect(await authorizer.authorize(request(user('dave'), 'get', ctb, 'clustertrustbundles', 'team-a'))).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: [clusterrole.rbac.authorization.plat.io "no-such-role" not found, role.rbac.authorization.plat.io "gone" not found]',
    });
  });

  it('follows the source: a new binding allows, a deleted one stops allowing', async () => {
    const store = fixture();
    const live = new RbacAuthorizer(store);
    const frank = user('frank');
    const attrs = request(frank, 'get', ctb, 'clustertrustbundles');
    expect((await live.authorize(attrs)).decision).toBe('NoOpinion');
    const binding = crb('frank-reads', 'bundle-reader', [userSubject('frank')]);
    store.upsert('ClusterRoleBinding', binding);
    expect((await live.authorize(attrs)).decision).toBe('Allow');
    // A role losing its rules takes effect too.
    store.upsert('ClusterRole', clusterRole('bundle-reader', []));
    expect((await live.authorize(attrs)).decision).toBe('NoOpinion');
    store.upsert('ClusterRole', clusterRole('bundle-reader', readBundles));
    store.delete('ClusterRoleBinding', binding);
    expect((await live.authorize(attrs)).decision).toBe('NoOpinion');
  });

  it('names the first binding by name and its first subject that applies', async () => {
    const store = new RbacPolicyStore({
      clusterRoles: [clusterRole('reader', readBundles)],
      clusterRoleBindings: [
        crb('z-binding', 'reader', [userSubject('gina')]),
        crb('a-binding', 'reader', [groupSubject('nobody'), groupSubject('readers'), userSubject('gina')]),
      ],
    });
    expect((await new RbacAuthorizer(store).authorize(request(user('gina', 'readers'), 'get', ctb, 'clustertrustbundles'))).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "a-binding" of ClusterRole "reader" to Group "readers"',
    );
  });
});

describe('RbacAuthorizer.rulesFor (SelfSubjectRulesReview)', () => {
  const authorizer = new RbacAuthorizer(
    new RbacPolicyStore({
      clusterRoles: [
        clusterRole('reader', readBundles),
        clusterRole('discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }]),
        clusterRole('config-reader', [{ verbs: ['get'], apiGroups: ['example.io'], resources: ['configs'], resourceNames: ['main'] }]),
      ],
      clusterRoleBindings: [crb('readers', 'reader', [groupSubject('system:authenticated')]), crb('disc', 'discovery', [groupSubject('system:authenticated')])],
      roleBindings: [rb('team-a', 'cfg', 'ClusterRole', 'config-reader', [userSubject('hal')]), rb('team-a', 'broken', 'Role', 'nope', [userSubject('hal')])],
    }),
  );

  it('lists resource and non-resource rules of the namespace, with missing roles as the evaluation error', () => {
    expect(authorizer.rulesFor(user('hal'), 'team-a')).toEqual({
      resourceRules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [ctb], resources: ['clustertrustbundles'] },
        { verbs: ['get'], apiGroups: ['example.io'], resources: ['configs'], resourceNames: ['main'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.plat.io "nope" not found',
    });
    expect(authorizer.rulesFor(user('hal'), 'team-b')).toEqual({
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [ctb], resources: ['clustertrustbundles'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
    });
  });
});

describe('RbacAuthorizer decisions across changes', () => {
  it('answers from the objects as they are now: every change of the store is seen by the next request', async () => {
    const store = new RbacPolicyStore({ clusterRoles: [clusterRole('bundle-reader', readBundles)] });
    const authorizer = new RbacAuthorizer(store);
    const get = request(user('carol', 'readers'), 'get', ctb, 'clustertrustbundles');
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
    store.upsert('ClusterRoleBinding', crb('readers', 'bundle-reader', [groupSubject('readers')]));
    expect(await authorizer.authorize(get)).toEqual({ decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "bundle-reader" to Group "readers"' });
    // The same user in other groups is another request.
    expect((await authorizer.authorize(request(user('carol'), 'get', ctb, 'clustertrustbundles'))).decision).toBe('NoOpinion');
    store.upsert('ClusterRole', clusterRole('bundle-reader', readConfig));
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
    store.upsert('ClusterRole', clusterRole('bundle-reader', readBundles));
    expect((await authorizer.authorize(get)).decision).toBe('Allow');
    store.delete('ClusterRoleBinding', crb('readers', 'bundle-reader', []));
    expect((await authorizer.authorize(get)).decision).toBe('NoOpinion');
  });

  it('never answers one user with another\'s decision, whatever characters their names hold', async () => {
    const store = new RbacPolicyStore({ clusterRoles: [clusterRole('bundle-reader', readBundles)], clusterRoleBindings: [crb('ab', 'bundle-reader', [groupSubject('a'), groupSubject('b')])] });
    const authorizer = new RbacAuthorizer(store);
    const get = (u: UserInfo) => authorizer.authorize(request(u, 'get', ctb, 'clustertrustbundles'));
    expect((await get({ username: 'x', groups: ['a', 'b'] })).decision).toBe('Allow');
    for (const sep of ['\u0000', '\u0001', ',', '","']) {
      expect((await get({ username: 'x', groups: [`a${sep}b`] })).decision).toBe('NoOpinion');
      expect((await get({ username: `x${sep}a`, groups: ['b'] })).decision).toBe('Allow');
    }
  });

  it('keeps non-resource decisions per namespace, as RBAC visits that namespace\'s bindings', async () => {
    const store = new RbacPolicyStore({
      clusterRoles: [clusterRole('version-reader', [{ verbs: ['get'], nonResourceURLs: ['/version'] }])],
      roleBindings: [rb('team-a', 'versions', 'ClusterRole', 'version-reader', [userSubject('erin')])],
    });
    const authorizer = new RbacAuthorizer(store);
    const version = (namespace: string): Attributes => ({ ...request(user('erin'), 'get', '', '', namespace), resourceRequest: false, path: '/version' });
    expect((await authorizer.authorize(version(''))).decision).toBe('NoOpinion');
    expect((await authorizer.authorize(version('team-a'))).decision).toBe('Allow');
    expect((await authorizer.authorize(version(''))).decision).toBe('NoOpinion');
  });

  it('keeps a bounded number of decisions and still answers past the bound', async () => {
    const authorizer = new RbacAuthorizer(fixture());
    for (let i = 0; i < decisionCacheSize + 10; i++) {
      expect((await authorizer.authorize(request(user(`user-${i}`), 'get', ctb, 'clustertrustbundles'))).decision).toBe('NoOpinion');
    }
    expect((await authorizer.authorize(request(user('alice'), 'get', ctb, 'clustertrustbundles'))).decision).toBe('Allow');
    expect((authorizer as unknown as { decisions: Map<string, unknown> }).decisions.size).toBeLessThanOrEqual(decisionCacheSize);
  });
});
