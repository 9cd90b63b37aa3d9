import {
  createAlwaysAllowAuthorizer,
  createAlwaysDenyAuthorizer,
  createAuthorizerChain,
  createBuiltinAuthorizer,
  isAllowed,
  type Attributes,
  type Authorizer,
  type UserInfo,
} from './index.js';

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups });
const authenticated = (name: string, ...groups: string[]) => user(name, ...groups, 'system:authenticated');

function resource(u: UserInfo, verb: string, apiGroup: string, res: string, name = '', subresource = ''): Attributes {
  return { user: u, verb, resourceRequest: true, apiGroup, apiVersion: 'v1alpha1', resource: res, subresource, namespace: '', name, path: '' };
}
function nonResource(u: UserInfo, verb: string, path: string): Attributes {
  return { user: u, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
}

describe('built-in authorizer', () => {
  const builtin = createBuiltinAuthorizer();

  it('allows system:masters everything, including impersonation and attest', async () => {
    const admin = authenticated('admin', 'system:masters');
    for (const attrs of [
      resource(admin, 'delete', 'certificates.plat.io', 'clustertrustbundles', 'x'),
      resource(admin, 'attest', 'certificates.plat.io', 'signers', 'example.com/s'),
      resource(admin, 'impersonate', '', 'users', 'bob'),
      nonResource(admin, 'get', '/metrics'),
    ]) {
      expect((await builtin.authorize(attrs)).decision).toBe('Allow');
    }
  });

  it('lets every authenticated user get, list and watch clustertrustbundles, and nothing more', async () => {
    const sa = authenticated('system:serviceaccount:ns:app', 'system:serviceaccounts', 'system:serviceaccounts:ns');
    // Under either group name: certificates.k8s.io serves the same objects.
    for (const [verb, group] of [['get', 'certificates.plat.io'], ['list', 'certificates.plat.io'], ['watch', 'certificates.plat.io'], ['get', 'certificates.k8s.io']]) {
      const result = await builtin.authorize(resource(sa, verb!, group!, 'clustertrustbundles'));
      expect(result.decision).toBe('Allow');
      expect(result.reason).toContain('system:clustertrustbundles-reader');
    }
    for (const attrs of [
      resource(sa, 'create', 'certificates.plat.io', 'clustertrustbundles'),
      resource(sa, 'create', 'certificates.k8s.io', 'clustertrustbundles'),
      resource(sa, 'get', 'certificates.plat.io', 'clustertrustbundles', 'x', 'status'),
      resource(sa, 'attest', 'certificates.plat.io', 'signers', 'example.com/s'),
    ]) {
      expect((await builtin.authorize(attrs)).decision).toBe('NoOpinion');
    }
  });

  it('lets authenticated users read discovery, OpenAPI, version and health but not metrics', async () => {
    const alice = authenticated('alice');
    for (const path of ['/api', '/apis', '/apis/certificates.plat.io/v1alpha1', '/openapi/v2', '/openapi/v3/apis/x/v1', '/version', '/healthz', '/readyz', '/livez']) {
      expect((await builtin.authorize(nonResource(alice, 'get', path))).decision).toBe('Allow');
    }
    expect((await builtin.authorize(nonResource(alice, 'get', '/metrics'))).decision).toBe('NoOpinion');
    expect((await builtin.authorize(nonResource(alice, 'post', '/apis'))).decision).toBe('NoOpinion');
    expect((await builtin.authorize(nonResource(alice, 'get', '/apiserver'))).decision).toBe('NoOpinion');
  });

  it('lets unauthenticated users read only health and version', async () => {
    const anon = user('system:anonymous', 'system:unauthenticated');
    expect((await builtin.authorize(nonResource(anon, 'get', '/healthz'))).decision).toBe('Allow');
    expect((await builtin.authorize(nonResource(anon, 'get', '/version'))).decision).toBe('Allow');
    expect((await builtin.authorize(nonResource(anon, 'get', '/apis'))).decision).toBe('NoOpinion');
    expect((await builtin.authorize(resource(anon, 'get', 'certificates.plat.io', 'clustertrustbundles'))).decision).toBe('NoOpinion');
  });

  it('lets members of system:monitoring read /metrics', async () => {
    expect((await builtin.authorize(nonResource(authenticated('prom', 'system:monitoring'), 'get', '/metrics'))).decision).toBe('Allow');
  });

  it('lets authenticated users review themselves', async () => {
    const alice = authenticated('alice');
    expect((await builtin.authorize(resource(alice, 'create', 'authentication.plat.io', 'selfsubjectreviews'))).decision).toBe('Allow');
    expect((await builtin.authorize(resource(alice, 'create', 'authorization.plat.io', 'selfsubjectaccessreviews'))).decision).toBe('Allow');
    expect((await builtin.authorize(resource(alice, 'create', 'authorization.plat.io', 'subjectaccessreviews'))).decision).toBe('NoOpinion');
  });
});

describe('authorizer chain', () => {
  const fixed = (decision: 'Allow' | 'Deny' | 'NoOpinion', reason = ''): Authorizer => ({ authorize: async () => ({ decision, reason }) });
  const attrs = resource(authenticated('bob'), 'create', 'certificates.plat.io', 'clustertrustbundles');

  it('stops at the first Allow or Deny', async () => {
    expect(await createAuthorizerChain([fixed('NoOpinion'), fixed('Deny', 'no'), fixed('Allow')]).authorize(attrs)).toEqual({
      decision: 'Deny',
      reason: 'no',
    });
    expect((await createAuthorizerChain([fixed('NoOpinion'), fixed('Allow'), fixed('Deny')]).authorize(attrs)).decision).toBe('Allow');
  });

  it('denies when every authorizer has no opinion, joining the reasons', async () => {
    const result = await createAuthorizerChain([fixed('NoOpinion', 'a'), fixed('NoOpinion'), fixed('NoOpinion', 'b')]).authorize(attrs);
    expect(result).toEqual({ decision: 'NoOpinion', reason: 'a\nb' });
    expect(isAllowed(result)).toBe(false);
    expect(isAllowed(await createAuthorizerChain([]).authorize(attrs))).toBe(false);
  });

  it('treats a throwing authorizer as no opinion and reports its error', async () => {
    const broken: Authorizer = {
      authorize: async () => {
        throw new Error('webhook down');
      },
    };
    const result = await createAuthorizerChain([{ name: 'hook', authorizer: broken }]).authorize(attrs);
    expect(result).toEqual({ decision: 'NoOpinion', reason: 'hook: webhook down' });
    expect((await createAuthorizerChain([{ name: 'hook', authorizer: broken }, fixed('Allow')]).authorize(attrs)).decision).toBe('Allow');
  });

  it('builds built-in rules then AlwaysDeny: users read bundles, cannot write them', async () => {
    const chain = createAuthorizerChain([{ name: 'builtin', authorizer: createBuiltinAuthorizer() }, { name: 'alwaysdeny', authorizer: createAlwaysDenyAuthorizer() }]);
    expect((await chain.authorize(resource(authenticated('bob'), 'list', 'certificates.plat.io', 'clustertrustbundles'))).decision).toBe('Allow');
    expect(await chain.authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
  });

  it('decides without waiting the way authorize does when every authorizer knows its answer', async () => {
    const known = (decision: 'Allow' | 'Deny' | 'NoOpinion', reason = ''): Authorizer => ({
      authorize: async () => ({ decision, reason }),
      authorizeKnown: () => ({ decision, reason }),
    });
    for (const authorizers of [
      [known('NoOpinion', 'a'), known('Deny', 'no'), known('Allow')],
      [known('NoOpinion', 'a'), known('NoOpinion'), known('NoOpinion', 'b')],
      [{ name: 'builtin', authorizer: createBuiltinAuthorizer() }, { name: 'alwaysdeny', authorizer: createAlwaysDenyAuthorizer() }],
      [createAlwaysAllowAuthorizer()],
      [],
    ]) {
      const chain = createAuthorizerChain(authorizers);
      for (const a of [attrs, resource(authenticated('bob'), 'list', 'certificates.plat.io', 'clustertrustbundles')]) {
        expect(chain.authorizeKnown!(a)).toEqual(await chain.authorize(a));
      }
    }
    // A webhook (no answer at hand) anywhere in the chain: every request waits for `authorize`,
    // so that no authorizer before it is asked twice.
    expect(createAuthorizerChain([known('Allow'), fixed('Allow')]).authorizeKnown).toBeUndefined();
    // One that throws leaves the decision (and the error's report) to `authorize`.
    const broken: Authorizer = {
      authorize: async () => ({ decision: 'Allow', reason: '' }),
      authorizeKnown: () => {
        throw new Error('bug');
      },
    };
    expect(createAuthorizerChain([known('NoOpinion'), broken]).authorizeKnown!(attrs)).toBeUndefined();
  });

  it('AlwaysAllow allows and AlwaysDeny never allows', async () => {
    expect((await createAlwaysAllowAuthorizer().authorize(attrs)).decision).toBe('Allow');
    expect((await createAlwaysDenyAuthorizer().authorize(attrs)).decision).not.toBe('Allow');
  });
});

describe('rulesFor (SelfSubjectRulesReview)', () => {
  const bob = authenticated('bob');

  it('lists what each authorizer of the chain grants; one that cannot list makes the answer incomplete', () => {
    const noList: Authorizer = { authorize: async () => ({ decision: 'NoOpinion', reason: '' }) };
    const chain = createAuthorizerChain([
      { name: 'builtin', authorizer: createBuiltinAuthorizer() },
      { name: 'deny', authorizer: createAlwaysDenyAuthorizer() },
    ]);
    const rules = chain.rulesFor!(bob, '');
    expect(rules.incomplete).toBe(false);
    expect(rules.resourceRules).toEqual(
      expect.arrayContaining([{ verbs: ['get', 'list', 'watch'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }]),
    );
    expect(rules.nonResourceRules.some((r) => r.nonResourceURLs?.includes('/apis/*'))).toBe(true);
    expect(createAuthorizerChain([chain, noList]).rulesFor!(bob, '').incomplete).toBe(true);
  });

  it('AlwaysAllow lists everything; privileged groups list nothing of their own (RBAC\'s cluster-admin binding shows it)', () => {
    expect(createAlwaysAllowAuthorizer().rulesFor!(bob, 'ns')).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
    expect(createBuiltinAuthorizer({ roles: [] }).rulesFor!(authenticated('root', 'system:masters'), '')).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });

  it('joins the evaluation errors of several authorizers as Go\'s aggregate', () => {
    const failing = (message: string): Authorizer => ({
      authorize: async () => ({ decision: 'NoOpinion', reason: '' }),
      rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: message }),
    });
    const rules = createAuthorizerChain([failing('a'), failing('b')]).rulesFor!(bob, '');
    expect(rules).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: '[a, b]' });
  });
});
