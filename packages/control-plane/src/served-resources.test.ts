import { createBuiltinAuthorizer, type Attributes, type UserInfo } from '@plat/auth';
import { createMetricsRegistry } from '@plat/telemetry';
import { MemoryStorage } from '@plat/storage';
import { createApiServer, servedResources, type ApiServer } from '@plat/server';
import type { AuthOptions } from './auth-options.js';
import { AuthorizationConfigError } from './identity-errors.js';
import { startIdentity, type Identity } from './identity.js';
import { createServedResources, type ServedResources } from './served-resources.js';

const logger = { info: () => undefined, error: () => undefined };
const options = (modes: string[]): AuthOptions => ({ oidc: { signingAlgs: ['RS256'] }, authorization: { modes }, setFlags: [] });

const attrs = (user: UserInfo, verb: string, resource: string, apiGroup = 'certificates.plat.io', name = ''): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace: '',
  name,
  path: '',
});

const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe('createServedResources with type RBAC', () => {
  let storage: MemoryStorage;
  let served: ServedResources;
  let server: ApiServer;
  let identity: Identity | undefined;
  beforeEach(async () => {
    storage = new MemoryStorage();
    served = createServedResources(storage);
    // The server's REST handlers first (it never listens here), then the controllers through them.
    server = createApiServer({ storage, authenticator: { authenticate: async () => null }, authorizer: createBuiltinAuthorizer(), resources: served.resources });
    await served.startControllers(server.loopback);
  });
  afterEach(async () => {
    await identity?.close();
    identity = undefined;
    await server.close();
    await served.stop();
    await storage.close();
  });

  it('serves ClusterTrustBundle (in every version under both certificates groups), Namespace, the RBAC kinds under both RBAC groups and CustomResourceDefinition under both apiextensions groups', () => {
    const stored = servedResources(served.resources).filter((r) => !r.createOnly);
    expect(stored.map((r) => `${r.group}/${r.version}/${r.resource}`).sort()).toEqual([
      '/v1/namespaces',
      'apiextensions.k8s.io/v1/customresourcedefinitions',
      'apiextensions.plat.io/v1/customresourcedefinitions',
      'certificates.k8s.io/v1/clustertrustbundles',
      'certificates.k8s.io/v1beta1/clustertrustbundles',
      'certificates.plat.io/v1/clustertrustbundles',
      'certificates.plat.io/v1alpha1/clustertrustbundles',
      'certificates.plat.io/v1beta1/clustertrustbundles',
      'rbac.authorization.k8s.io/v1/clusterrolebindings',
      'rbac.authorization.k8s.io/v1/clusterroles',
      'rbac.authorization.k8s.io/v1/rolebindings',
      'rbac.authorization.k8s.io/v1/roles',
      'rbac.authorization.plat.io/v1/clusterrolebindings',
      'rbac.authorization.plat.io/v1/clusterroles',
      'rbac.authorization.plat.io/v1/rolebindings',
      'rbac.authorization.plat.io/v1/roles',
    ]);
    const reviews = servedResources(served.resources).filter((r) => r.createOnly);
    expect(reviews.map((r) => `${r.group}/${r.resource}`)).toEqual([
      'authentication.plat.io/selfsubjectreviews',
      'authorization.plat.io/selfsubjectaccessreviews',
      'authorization.plat.io/selfsubjectrulesreviews',
      'authorization.plat.io/subjectaccessreviews',
      'authentication.k8s.io/selfsubjectreviews',
      'authorization.k8s.io/selfsubjectaccessreviews',
      'authorization.k8s.io/selfsubjectrulesreviews',
      'authorization.k8s.io/subjectaccessreviews',
    ]);
  });

  it('answers from the bootstrap policy and follows bindings written to storage', async () => {
    identity = await startIdentity(options(['RBAC']), { registry: createMetricsRegistry({ defaultMetrics: false }), logger, requestTimeoutMs: 0, rbacResolver: served.rbacResolver });
    const decide = async (a: Attributes) => (await identity!.authorizer.authorize(a)).decision;
    expect(await decide(attrs(admin, 'delete', 'clustertrustbundles'))).toBe('Allow');
    // Reading bundles is the bootstrap policy's now, not a built-in rule.
    expect(await decide(attrs(alice, 'list', 'clustertrustbundles'))).toBe('Allow');
    expect(await decide(attrs(alice, 'create', 'clustertrustbundles'))).not.toBe('Allow');
    expect(await decide(attrs(alice, 'attest', 'signers', 'certificates.plat.io', 'example.com/foo'))).not.toBe('Allow');

    await storage.create('/rbac.authorization.plat.io/clusterroles/publisher', {
      apiVersion: 'rbac.authorization.plat.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'publisher' },
      rules: [
        { apiGroups: ['certificates.plat.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['attest'] },
        { apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'], verbs: ['create', 'update', 'patch'] },
      ],
    });
    await storage.create('/rbac.authorization.plat.io/clusterrolebindings/publisher', {
      apiVersion: 'rbac.authorization.plat.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'publisher' },
      roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'publisher' },
      subjects: [{ apiGroup: 'rbac.authorization.plat.io', kind: 'User', name: 'alice' }],
    });
    await eventually(async () => {
      expect(await decide(attrs(alice, 'attest', 'signers', 'certificates.plat.io', 'example.com/*'))).toBe('Allow');
    });
    expect(await decide(attrs(alice, 'create', 'clustertrustbundles'))).toBe('Allow');
    expect(await decide(attrs(alice, 'attest', 'signers', 'certificates.plat.io', 'other.com/*'))).not.toBe('Allow');
    expect(await decide(attrs({ username: 'bob', groups: ['system:authenticated'] }, 'attest', 'signers', 'certificates.plat.io', 'example.com/*'))).not.toBe('Allow');
    // SelfSubjectRulesReview's source: the chain lists what RBAC gives.
    const rules = await identity.authorizer.rulesFor!(alice, '');
    expect(rules.resourceRules).toContainEqual(expect.objectContaining({ verbs: ['attest'], resourceNames: ['example.com/*'] }));
  });

  it('keeps the built-in reader rules when RBAC is not among the authorizers', async () => {
    identity = await startIdentity(options(['AlwaysDeny']), { registry: createMetricsRegistry({ defaultMetrics: false }), logger, requestTimeoutMs: 0 });
    expect((await identity.authorizer.authorize(attrs(alice, 'list', 'clustertrustbundles'))).decision).toBe('Allow');
  });

  it('refuses type RBAC without the server\'s RBAC objects', async () => {
    await expect(startIdentity(options(['RBAC']), { registry: createMetricsRegistry({ defaultMetrics: false }), logger, requestTimeoutMs: 0 })).rejects.toThrow(
      AuthorizationConfigError,
    );
  });
});
