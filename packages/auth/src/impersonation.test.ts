import {
  ImpersonationError,
  createBuiltinAuthorizer,
  forbiddenMessage,
  hasImpersonationHeaders,
  impersonate,
  splitServiceAccountUsername,
  type Attributes,
  type Authorizer,
  type UserInfo,
} from './index.js';

const nsUser: UserInfo = { username: 'dev', groups: ['team', 'system:authenticated'] };

/** Allows `dev` to impersonate service accounts in namespace `ns` only; records every check. */
function recordingAuthorizer(): Authorizer & { seen: Attributes[] } {
  const seen: Attributes[] = [];
  return {
    seen,
    async authorize(attrs) {
      seen.push(attrs);
      const ok = attrs.verb === 'impersonate' && attrs.resource === 'serviceaccounts' && attrs.namespace === 'ns';
      return ok ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: 'no rule' };
    },
  };
}

describe('impersonate', () => {
  it('answers null when no Impersonate-* header is present', async () => {
    expect(await impersonate(nsUser, { accept: 'x' }, recordingAuthorizer())).toBeNull();
    expect(hasImpersonationHeaders({ accept: 'x' })).toBe(false);
    expect(hasImpersonationHeaders({ 'impersonate-extra-scopes': ['a'] })).toBe(true);
  });

  it('lets a namespace-scoped user act as a service account of that namespace, with its groups', async () => {
    const authz = recordingAuthorizer();
    const acting = await impersonate(nsUser, { 'impersonate-user': 'system:serviceaccount:ns:reader' }, authz);
    expect(acting).toEqual({
      username: 'system:serviceaccount:ns:reader',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    });
    expect(authz.seen[0]).toMatchObject({ verb: 'impersonate', resource: 'serviceaccounts', namespace: 'ns', name: 'reader', apiGroup: '' });
    // The resulting user reads bundles through the built-in rule.
    const read = await createBuiltinAuthorizer().authorize({
      user: acting!,
      verb: 'list',
      resourceRequest: true,
      apiGroup: 'certificates.plat.io',
      apiVersion: 'v1alpha1',
      resource: 'clustertrustbundles',
      subresource: '',
      namespace: '',
      name: '',
      path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles',
    });
    expect(read.decision).toBe('Allow');
  });

  it('refuses a service account of another namespace with Kubernetes wording', async () => {
    const err = await impersonate(nsUser, { 'impersonate-user': 'system:serviceaccount:other:reader' }, recordingAuthorizer()).catch((e) => e);
    expect(err).toBeInstanceOf(ImpersonationError);
    expect(err.kind).toBe('Forbidden');
    expect(err.message).toBe('User "dev" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "other": no rule');
  });

  it('checks users, groups, uid and extra values one by one', async () => {
    const seen: Attributes[] = [];
    const allowAll: Authorizer = {
      async authorize(attrs) {
        seen.push(attrs);
        return { decision: 'Allow', reason: '' };
      },
    };
    const acting = await impersonate(
      nsUser,
      {
        'impersonate-user': 'jane',
        'impersonate-group': ['g1', 'g2'],
        'impersonate-uid': 'u-1',
        'impersonate-extra-acme.com%2fproject': ['p1', 'p2'],
      },
      allowAll,
    );
    expect(acting).toEqual({ username: 'jane', uid: 'u-1', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'acme.com/project': ['p1', 'p2'] } });
    expect(seen.map((a) => [a.resource, a.subresource, a.name, a.apiGroup])).toEqual([
      ['users', '', 'jane', ''],
      ['groups', '', 'g1', ''],
      ['groups', '', 'g2', ''],
      ['userextras', 'acme.com/project', 'p1', 'authentication.plat.io'],
      ['userextras', 'acme.com/project', 'p2', 'authentication.plat.io'],
      ['uids', '', 'u-1', 'authentication.plat.io'],
    ]);
  });

  it('keeps system:unauthenticated for anonymous and does not add system:authenticated to it', async () => {
    const allowAll: Authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };
    expect(await impersonate(nsUser, { 'impersonate-user': 'system:anonymous' }, allowAll)).toEqual({
      username: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
    expect((await impersonate(nsUser, { 'impersonate-user': 'x', 'impersonate-group': 'system:unauthenticated' }, allowAll))?.groups).toEqual([
      'system:unauthenticated',
    ]);
  });

  it('rejects groups without a user', async () => {
    const err = await impersonate(nsUser, { 'impersonate-group': 'devs' }, recordingAuthorizer()).catch((e) => e);
    expect(err.kind).toBe('BadRequest');
    expect(err.message).toBe('requested [{Group  devs    }] without impersonating a user');
  });

  it('treats a malformed service account name as a plain user', () => {
    expect(splitServiceAccountUsername('system:serviceaccount:ns:app')).toEqual({ namespace: 'ns', name: 'app' });
    expect(splitServiceAccountUsername('system:serviceaccount:NS:app')).toBeUndefined();
    expect(splitServiceAccountUsername('system:serviceaccount:ns:a:b')).toBeUndefined();
  });

  it('words non-resource denials with the path', () => {
    expect(
      forbiddenMessage({ user: nsUser, verb: 'get', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: '/metrics' }),
    ).toBe('User "dev" cannot get path "/metrics"');
  });
});
