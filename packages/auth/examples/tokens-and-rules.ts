import * as assert from 'node:assert/strict';
import {
  AuthenticationError,
  createAuthorizerChain,
  createBearerTokenAuthenticator,
  createBuiltinAuthorizer,
  createStaticTokenAuthenticator,
  createUnionAuthenticator,
  forbiddenMessage,
  isAllowed,
  parseTokenFile,
  type Attributes,
} from '@plat/auth';

// Authentication: a --token-auth-file (token,user,uid,"groups") behind a bearer-token reader.
const tokenFile = parseTokenFile('t0ken-ada,ada,1001,"dev,ops"\nt0ken-root,root,0,system:masters\n', 'tokens.csv');
const authenticator = createUnionAuthenticator([createBearerTokenAuthenticator(createStaticTokenAuthenticator(tokenFile.tokens))]);

const request = { method: 'GET', path: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', headers: { authorization: 'Bearer t0ken-ada' } };
const ada = await authenticator.authenticate(request);
assert.deepEqual(ada?.user, { username: 'ada', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] });

// No credential: null (the next authenticator, or anonymous, may answer). A wrong one: 401.
assert.equal(await authenticator.authenticate({ ...request, headers: {} }), null);
await assert.rejects(authenticator.authenticate({ ...request, headers: { authorization: 'Bearer nope' } }), AuthenticationError);

// Authorization: an ordered chain; the built-in rules let every authenticated user read
// ClusterTrustBundles and system:masters do anything. Everything else is NoOpinion (denied).
const authorizer = createAuthorizerChain([{ name: 'builtin', authorizer: createBuiltinAuthorizer() }]);
const attributes = (verb: string, user = ada!.user): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: 'v1alpha1',
  resource: 'clustertrustbundles',
  subresource: '',
  namespace: '',
  name: 'example.com:signer:roots',
  path: `/apis/certificates.plat.io/v1alpha1/clustertrustbundles/example.com:signer:roots`,
});
assert.ok(isAllowed(await authorizer.authorize(attributes('get'))));
assert.ok(!isAllowed(await authorizer.authorize(attributes('delete'))));
console.log(forbiddenMessage(attributes('delete'))); // User "ada" cannot delete resource "clustertrustbundles" ...

const root = (await authenticator.authenticate({ ...request, headers: { authorization: 'Bearer t0ken-root' } }))!.user;
assert.ok(isAllowed(await authorizer.authorize(attributes('delete', root))));
