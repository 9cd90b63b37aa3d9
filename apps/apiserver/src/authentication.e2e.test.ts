import fs from 'node:fs';
import path from 'node:path';
import { eventually, startOidcProvider, startServer, tempDir, type OidcProvider, type TestServer } from '../test/auth-fixtures.js';

// The apiserver's authentication over real HTTPS: JWT authenticators from --authentication-config
// (discovery and keys from a live OIDC provider), the --oidc-* flags, anonymous access, the review
// APIs and the per-issuer metrics (an issuer that is down at start: test/oidc-issuer.test.ts).

const ssr = '/apis/authentication.plat.io/v1/selfsubjectreviews';
const ctbList = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const now = () => Math.floor(Date.now() / 1000);

function authenticationConfig(idp: OidcProvider, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apiserver.plat.io/v1beta1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: { url: idp.url, certificateAuthority: fs.readFileSync(idp.caFile, 'utf8'), audiences: ['plat', 'other'], audienceMatchPolicy: 'MatchAny' },
        claimValidationRules: [{ expression: "claims.hd == 'example.com'", message: 'hd must be example.com' }],
        claimMappings: {
          username: { expression: "'corp:' + claims.sub" },
          groups: { expression: "claims.roles.map(r, 'role:' + r)" },
          uid: { claim: 'sub' },
          extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
        },
        userValidationRules: [{ expression: "!user.username.startsWith('corp:system')", message: 'system names are reserved' }],
      },
    ],
    ...extra,
  });
}

const claims = (idp: OidcProvider, over: Record<string, unknown> = {}) => ({
  iss: idp.url,
  aud: 'plat',
  sub: 'alice',
  hd: 'example.com',
  roles: ['dev', 'ops'],
  tenant: 'blue',
  iat: now(),
  exp: now() + 600,
  ...over,
});

describe('JWT authentication from --authentication-config', () => {
  let dir: string;
  let idp: OidcProvider;
  let s: TestServer;
  beforeAll(async () => {
    dir = tempDir('plat-authn-');
    idp = await startOidcProvider(dir, { extraAlgs: ['ES256'] });
    const file = path.join(dir, 'authn.yaml');
    fs.writeFileSync(file, authenticationConfig(idp));
    s = await startServer(path.join(dir, 'data'), [`--authentication-config=${file}`], { keySet: { minUnknownKidRefreshMs: 0, initialRetryMs: 50 } });
    // The issuer's keys load in the background (the server is ready before that, as kube-apiserver is).
    const probe = await idp.sign(claims(idp));
    await eventually(async () => (await s.req({ token: probe }, 'GET', '/version')).status === 200);
  });
  afterAll(async () => {
    await s?.stop();
    await idp?.stop();
  });

  it('maps claims with CEL (username, groups, uid, extra, the jti as credential id) and answers the user in a SelfSubjectReview', async () => {
    const token = await idp.sign(claims(idp, { jti: '2b76b98d-e185' }));
    const res = await s.req({ token }, 'POST', ssr, { apiVersion: 'authentication.plat.io/v1', kind: 'SelfSubjectReview' });
    expect(res.status).toBe(201);
    expect(res.json.status).toEqual({
      userInfo: {
        username: 'corp:alice',
        uid: 'alice',
        groups: ['role:dev', 'role:ops', 'system:authenticated'],
        extra: { 'authentication.plat.io/credential-id': ['JTI=2b76b98d-e185'], 'example.com/tenant': ['blue'] },
      },
    });
    // The same user reads clustertrustbundles (built-in rule for authenticated users).
    expect((await s.req({ token }, 'GET', ctbList)).status).toBe(200);
    // A configuration file accepts every asymmetric algorithm.
    expect((await s.req({ token: await idp.sign(claims(idp, { sub: 'es' }), { alg: 'ES256' }) }, 'GET', ctbList)).status).toBe(200);
  });

  it.each([
    ['a foreign audience', { aud: 'someone-else' }],
    ['an expired token', { exp: now() - 3600, iat: now() - 7200 }],
    ['a failed claim validation rule', { hd: 'evil.com' }],
    ['a failed user validation rule', { sub: 'system-admin' }],
    ['a groups mapping of the wrong type', { roles: 'dev' }],
    ['an unknown issuer', { iss: 'https://unknown.example.com' }],
  ])('rejects %s with 401', async (_name, over) => {
    const token = await idp.sign(claims(idp, over));
    const res = await s.req({ token }, 'GET', ctbList);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('picks up a rotated key (an unknown kid refreshes the key set)', async () => {
    const goodKid = await idp.sign(claims(idp, { sub: 'before-rotation' }));
    expect((await s.req({ token: goodKid }, 'GET', ctbList)).status).toBe(200);
    const newKid = await idp.rotate();
    const rotated = await idp.sign(claims(idp, { sub: 'bob' }), { kid: newKid });
    const res = await s.req({ token: rotated }, 'POST', ssr, {});
    expect(res.status).toBe(201);
    expect(res.json.status).toMatchObject({ userInfo: { username: 'corp:bob' } });
    // A token verified before the rotation is cached until it expires; that is Kubernetes' cache too.
    expect((await s.req({ token: goodKid }, 'GET', ctbList)).status).toBe(200);
  });

  it('lets requests without credentials through as system:anonymous, to be authorized like anyone', async () => {
    const list = await s.req('none', 'GET', ctbList);
    expect(list.status).toBe(403);
    expect(list.json.message).toContain('User "system:anonymous" cannot list resource "clustertrustbundles"');
    expect((await s.req('none', 'GET', '/version')).status).toBe(200);
    // An invalid credential is never downgraded to anonymous.
    expect((await s.req({ token: 'not-a-jwt' }, 'GET', '/version')).status).toBe(401);
  });

  it('counts validations per issuer in /metrics', async () => {
    const metrics = await s.req('admin', 'GET', '/metrics');
    expect(metrics.text).toMatch(new RegExp(`apiserver_authentication_jwt_authenticator_validations_total\\{issuer="${idp.url.replace(/[.]/g, '\\.')}",result="success"\\} [1-9]`));
    expect(metrics.text).toMatch(/apiserver_authentication_jwt_authenticator_validations_total\{[^}]*result="failure"\} [1-9]/);
  });
});

describe('the --oidc-* flags', () => {
  it('build the same JWT authenticator, with the issuer-prefixed username and the required claims', async () => {
    const dir = tempDir('plat-oidc-flags-');
    const idp = await startOidcProvider(dir, { extraAlgs: ['ES256'] });
    const s = await startServer(path.join(dir, 'data'), [
      `--oidc-issuer-url=${idp.url}`,
      '--oidc-client-id=plat',
      `--oidc-ca-file=${idp.caFile}`,
      '--oidc-groups-claim=roles',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=hd=example.com',
      '--anonymous-auth=false',
    ]);
    try {
      const token = await idp.sign(claims(idp));
      await eventually(async () => (await s.req({ token }, 'GET', '/version')).status === 200);
      const res = await s.req({ token }, 'POST', ssr, {});
      expect(res.status).toBe(201);
      expect(res.json.status).toEqual({ userInfo: { username: `${idp.url}#alice`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] } });
      expect((await s.req({ token: await idp.sign(claims(idp, { hd: 'other.org' })) }, 'GET', ctbList)).status).toBe(401);
      // --oidc-signing-algs defaults to RS256: an ES256 token of the same issuer is refused.
      expect((await s.req({ token: await idp.sign(claims(idp), { alg: 'ES256' }) }, 'GET', ctbList)).status).toBe(401);
      // --anonymous-auth=false: no credential is a 401.
      expect((await s.req('none', 'GET', '/version')).status).toBe(401);
    } finally {
      await s.stop();
      await idp.stop();
    }
  });
});

describe('anonymous access from the configuration file', () => {
  it('serves anonymous requests only on the listed paths', async () => {
    const dir = tempDir('plat-anon-');
    const file = path.join(dir, 'authn.yaml');
    fs.writeFileSync(
      file,
      ['apiVersion: apiserver.plat.io/v1beta1', 'kind: AuthenticationConfiguration', 'anonymous:', '  enabled: true', '  conditions:', '  - path: /livez', ''].join('\n'),
    );
    const s = await startServer(path.join(dir, 'data'), [`--authentication-config=${file}`]);
    try {
      expect((await s.req('none', 'GET', '/livez')).status).toBe(200);
      expect((await s.req('none', 'GET', '/version')).status).toBe(401);
    } finally {
      await s.stop();
    }
  });
});
