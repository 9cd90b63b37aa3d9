import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookMetrics, type Attributes } from '@plat/auth';
import { authorizationConfigurationFromFlags } from '@plat/config';
import { AuthorizationConfigError, buildAuthorization, loadAuthorization, startIdentity, supportedAuthorizerTypes, type AuthOptions } from '@plat/control-plane';
import { createMetricsRegistry } from '@plat/telemetry';

const logger = { info: (message: string) => console.log(message), error: (message: string) => console.error(message) };
const dir = await mkdtemp(join(tmpdir(), 'plat-control-plane-'));

// The options kube-apiserver's flags stand for: here --authorization-mode=AlwaysDeny and no
// authentication configuration (anonymous requests stay allowed to authenticate).
const auth: AuthOptions = {
  oidc: { signingAlgs: ['RS256'] },
  authorization: { modes: ['AlwaysDeny'] },
  setFlags: ['authorization-mode'],
};
const registry = createMetricsRegistry({ defaultMetrics: false });
const identity = await startIdentity(auth, { registry, logger, requestTimeoutMs: 60_000 });
try {
  // No credential: system:anonymous. The built-in rules run first (anyone may read /version, as
  // Kubernetes' system:public-info-viewer allows); then AlwaysDeny, which like Kubernetes' has no
  // opinion: nothing allowed the request, so the server answers 403.
  const anonymous = await identity.authenticator.authenticate({ method: 'GET', path: '/healthz', headers: {} });
  assert.equal(anonymous?.user.username, 'system:anonymous');
  const attributes = (path: string): Attributes => ({
    user: anonymous!.user,
    verb: 'get',
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path,
  });
  assert.equal((await identity.authorizer.authorize(attributes('/version'))).decision, 'Allow');
  assert.equal((await identity.authorizer.authorize(attributes('/metrics'))).decision, 'NoOpinion');
} finally {
  await identity.close();
}

// A webhook authorizer must be reached over https://: its SubjectAccessReviews carry identities.
const platConfig = join(dir, 'webhook.conf');
await writeFile(
  platConfig,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'webhook', cluster: { server: 'http://authz.example.com/authorize' } }],
    users: [{ name: 'apiserver', user: {} }],
    contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
    'current-context': 'webhook',
  }),
);
const text = `apiVersion: apiserver.plat.io/v1beta1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: corp
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: PlatConfigFile
      platConfigFile: ${platConfig}
    matchConditions:
    - expression: "request.resourceAttributes.resource == 'clustertrustbundles'"
`;
const metrics = new WebhookMetrics(createMetricsRegistry({ defaultMetrics: false }));
const config = loadAuthorization({ ...auth, authorizationConfigFile: join(dir, 'authz.yaml') }, text, logger);
const refused = (() => {
  try {
    return buildAuthorization(config, metrics);
  } catch (err) {
    return err;
  }
})();
assert.ok(refused instanceof AuthorizationConfigError);
console.log(refused.message);

// The types a configuration may name here, and the configuration of --authorization-mode alone.
console.log(supportedAuthorizerTypes.join(', '));
const fromFlags = authorizationConfigurationFromFlags({ modes: ['Node', 'AlwaysAllow'] }, { supportedTypes: supportedAuthorizerTypes });
assert.ok(fromFlags.ok);
const chain = buildAuthorization(fromFlags.config, metrics);
await chain.close();
await rm(dir, { recursive: true, force: true });
