import { Registry } from 'prom-client';
import { SignJWT } from 'jose';
import { CelTypes, compile } from '@plat/cel';
import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import type { JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';

let idp: TestOidcProvider;
const open: JwtAuthenticator[] = [];

beforeAll(async () => {
  idp = await startOidcProvider();
});
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()));
  await idp.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

function spec(overrides: Partial<JwtAuthenticatorSpec> = {}, provider = idp): JwtAuthenticatorSpec {
  return {
    issuer: { url: provider.url, certificateAuthority: provider.ca, audiences: ['plat', 'other'], audienceMatchPolicy: 'MatchAny' },
    claimMappings: { username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: 'oidc:' } },
    ...overrides,
  };
}

async function ready(specs: JwtAuthenticatorSpec[], opts: ConstructorParameters<typeof JwtAuthenticator>[1] = {}) {
  const a = new JwtAuthenticator(specs, { keySet: { minUnknownKidRefreshMs: 0, initialRetryMs: 50 }, ...opts });
  open.push(a);
  a.start();
  await waitFor(() => a.readiness().every((r) => r.ready));
  return a;
}

async function waitFor(check: () => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: idp.url,
  aud: ['plat'],
  sub: 'alice',
  exp: nowSeconds() + 600,
  iat: nowSeconds(),
  ...extra,
});

describe('JWT authenticator: verification', () => {
  it('maps claims with prefixes after discovery and JWKS over HTTPS', async () => {
    const a = await ready([spec()]);
    const result = await a.authenticateToken(await idp.sign(claims({ groups: ['dev', 'ops'] })));
    expect(result?.user).toEqual({ username: 'oidc:alice', groups: ['oidc:dev', 'oidc:ops'] });
    expect(idp.requests).toContain('/.well-known/openid-configuration');
  });

  it('accepts a token whose audiences include any configured audience and rejects others', async () => {
    const a = await ready([spec()]);
    expect(await a.authenticateToken(await idp.sign(claims({ aud: ['x', 'other'] })))).not.toBeNull();
    await expect(a.authenticateToken(await idp.sign(claims({ aud: ['x'] })))).rejects.toThrow(
      'oidc: verify token: oidc: expected audience in ["other" "plat"] got ["x"]',
    );
  });

  it("applies go-oidc's clock rule: exp without leeway, nbf up to a minute ahead, a missing exp is expired", async () => {
    const a = await ready([spec()]);
    await expect(a.authenticateToken(await idp.sign(claims({ exp: nowSeconds() - 2 })))).rejects.toThrow(
      /^oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/,
    );
    expect((await a.authenticateToken(await idp.sign(claims({ sub: 'early', nbf: nowSeconds() + 50 }))))?.user.username).toBe('oidc:early');
    await expect(a.authenticateToken(await idp.sign(claims({ nbf: nowSeconds() + 600 })))).rejects.toThrow(
      /^oidc: verify token: oidc: current time \d{4}-.* \+0000 UTC before the nbf \(not before\) time: \d{4}-.* \+0000 UTC$/,
    );
    const { exp: _exp, ...noExp } = claims();
    await expect(a.authenticateToken(await idp.sign(noExp))).rejects.toThrow(
      'oidc: verify token: oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)',
    );
  });

  it('ignores tokens of unknown issuers and non-JWT tokens (another authenticator may own them)', async () => {
    const a = await ready([spec()]);
    expect(await a.authenticateToken(await idp.sign(claims({ iss: 'https://elsewhere' })))).toBeNull();
    expect(await a.authenticateToken('static-token-abc')).toBeNull();
  });

  it('accepts RS, ES, PS and EdDSA signatures and never HMAC or none', async () => {
    const a = await ready([spec()]);
    for (const alg of ['ES256', 'PS256', 'EdDSA', 'ES384']) {
      await idp.addKey(alg);
    }
    for (const alg of ['ES256', 'PS256', 'EdDSA', 'ES384']) {
      const token = await idp.sign(claims({ sub: alg }), { alg });
      expect((await a.authenticateToken(token))?.user.username).toBe(`oidc:${alg}`);
    }
    const hmac = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    await expect(a.authenticateToken(hmac)).rejects.toThrow(/oidc: verify token/);
    const [h, p] = (await idp.sign(claims())).split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    await expect(a.authenticateToken(none)).rejects.toThrow(/oidc: verify token/);
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims({ sub: 'root' }))).toString('base64url')}.${(await idp.sign(claims())).split('.')[2]}`;
    await expect(a.authenticateToken(tampered)).rejects.toThrow(/failed to verify signature/);
  });

  it('picks up a rotated key by refetching the JWKS on an unknown kid', async () => {
    const a = await ready([spec()]);
    const kid = await idp.rotate('ES256');
    const token = await idp.sign(claims(), { kid });
    expect((await a.authenticateToken(token))?.user.username).toBe('oidc:alice');
  });

  it('remembers a verified token for 10 s (as kube-apiserver does) and counts validations per issuer', async () => {
    const registry = new Registry();
    let clock = Date.now();
    const a = await ready([spec()], { registry, now: () => clock, keySet: { minUnknownKidRefreshMs: 0, initialRetryMs: 50 } });
    const token = await idp.sign(claims());
    await a.authenticateToken(token);
    clock += 9_000;
    await a.authenticateToken(token);
    const metric = (result: string) => `apiserver_authentication_jwt_authenticator_validations_total{issuer="${idp.url}",result="${result}"}`;
    expect(await registry.metrics()).toContain(`${metric('success')} 1\n`);
    expect(await registry.metrics()).toContain(`${metric('cached')} 1\n`);
    clock += 2_000;
    await a.authenticateToken(token);
    expect(await registry.metrics()).toContain(`${metric('success')} 2\n`);
  });

  it("accepts Google's issuer without its scheme in iss, as go-oidc does", async () => {
    const google = await startOidcProvider();
    google.setDiscoveredIssuer('https://accounts.google.com');
    try {
      const a = await ready([
        {
          issuer: { url: 'https://accounts.google.com', discoveryURL: `${google.url}/.well-known/openid-configuration`, certificateAuthority: google.ca, audiences: ['plat'] },
          claimMappings: { username: { claim: 'email', prefix: '' } },
        },
      ]);
      for (const iss of ['accounts.google.com', 'https://accounts.google.com']) {
        const token = await google.sign({ ...claims(), iss, email: `${iss.length}@gmail.com` });
        expect((await a.authenticateToken(token))?.user.username).toBe(`${iss.length}@gmail.com`);
      }
    } finally {
      await google.close();
    }
  });
});

describe('JWT authenticator: claims and CEL', () => {
  it('refuses an unverified email when the username claim is email', async () => {
    const a = await ready([spec({ claimMappings: { username: { claim: 'email', prefix: '' } } })]);
    await expect(a.authenticateToken(await idp.sign(claims({ email: 'a@x.io', email_verified: false })))).rejects.toThrow(
      'oidc: email not verified',
    );
    expect((await a.authenticateToken(await idp.sign(claims({ email: 'a@x.io', email_verified: true }))))?.user.username).toBe('a@x.io');
    expect((await a.authenticateToken(await idp.sign(claims({ email: 'b@x.io' }))))?.user.username).toBe('b@x.io');
  });

  it('maps username, groups, uid and extra with CEL', async () => {
    const a = await ready([
      spec({
        claimMappings: {
          username: { expression: '"cel:" + claims.sub' },
          groups: { expression: 'claims.roles.split(",")' },
          uid: { expression: 'string(claims.n)' },
          extra: [
            { key: 'example.com/tenant', valueExpression: 'claims.?tenant.orValue("")' },
            { key: 'example.com/scopes', valueExpression: '["a", "", "b"]' },
          ],
        },
      }),
    ]);
    const result = await a.authenticateToken(await idp.sign(claims({ roles: 'dev,ops', n: 42 })));
    expect(result?.user).toEqual({
      username: 'cel:alice',
      groups: ['dev', 'ops'],
      uid: '42',
      extra: { 'example.com/scopes': ['a', 'b'] },
    });
  });

  it('uses the CEL programs it is given (compiled by @plat/config) instead of compiling the expressions again', async () => {
    let evaluations = 0;
    const counted = (env: 'claims' | 'user', expression: string, types: string[]) => {
      const compiled = compile(env, expression, types);
      if (!compiled.ok) throw new Error(compiled.issue.detail);
      return Object.create(compiled.program, {
        evaluate: { value: (activation: Record<string, unknown>) => (evaluations++, compiled.program.evaluate(activation)) },
      }) as typeof compiled.program;
    };
    const a = await ready([
      spec({
        claimMappings: { username: { expression: '"cel:" + claims.sub', program: counted('claims', '"cel:" + claims.sub', [CelTypes.Any]) } },
        userValidationRules: [{ expression: "user.username != 'cel:mallory'", message: 'no', program: counted('user', "user.username != 'cel:mallory'", [CelTypes.Bool]) }],
      }),
    ]);
    expect((await a.authenticateToken(await idp.sign(claims())))?.user.username).toBe('cel:alice');
    expect(evaluations).toBe(2);
  });

  it('reports mapping results of the wrong type as errors', async () => {
    const a = await ready([spec({ claimMappings: { username: { expression: 'claims.n' } } })]);
    await expect(a.authenticateToken(await idp.sign(claims({ n: 1 })))).rejects.toThrow(
      'oidc: error evaluating username claim expression: username claim expression must return a string',
    );
  });

  it('applies claim validation rules: required claims and CEL with messages', async () => {
    const a = await ready([
      spec({
        claimValidationRules: [
          { claim: 'hd', requiredValue: 'example.com' },
          { expression: 'claims.exp - claims.iat <= 3600', message: 'token lifetime too long' },
        ],
      }),
    ]);
    await expect(a.authenticateToken(await idp.sign(claims()))).rejects.toThrow('oidc: required claim hd not present in ID token');
    await expect(a.authenticateToken(await idp.sign(claims({ hd: 'evil.com' })))).rejects.toThrow(
      'oidc: required claim hd value does not match. Got = evil.com, want = example.com',
    );
    await expect(a.authenticateToken(await idp.sign(claims({ hd: 'example.com', iat: nowSeconds() - 7200 })))).rejects.toThrow(
      "oidc: error evaluating claim validation expression: validation expression 'claims.exp - claims.iat <= 3600' failed: token lifetime too long",
    );
    expect(await a.authenticateToken(await idp.sign(claims({ hd: 'example.com' })))).not.toBeNull();
  });

  it('evaluates what cel-go type-checks: has() of an indexed element, optional chains, indexed claim names', async () => {
    const a = await ready([
      spec({
        claimMappings: {
          username: { expression: 'claims["example.com/user"]' },
          groups: { expression: 'claims.teams.filter(t, has(t.name)).map(t, t.name)' },
        },
        claimValidationRules: [
          { expression: 'has(claims.teams[0].name)', message: 'first team has no name' },
          { expression: 'claims.?org.?verified.orValue(true) == true', message: 'organization not verified' },
          { expression: 'claims.level == 2.0', message: 'wrong level' },
        ],
      }),
    ]);
    const token = (extra: Record<string, unknown>) => idp.sign(claims({ 'example.com/user': 'carol', level: 2, ...extra }));
    const result = await a.authenticateToken(await token({ teams: [{ name: 'dev' }, { id: 7 }] }));
    expect(result?.user).toEqual({ username: 'carol', groups: ['dev'] });
    await expect(a.authenticateToken(await token({ teams: [{ id: 7 }] }))).rejects.toThrow(
      "oidc: error evaluating claim validation expression: validation expression 'has(claims.teams[0].name)' failed: first team has no name",
    );
    await expect(a.authenticateToken(await token({ teams: [{ name: 'dev' }], org: { verified: false } }))).rejects.toThrow(
      'failed: organization not verified',
    );
  });

  it('applies user validation rules and returns their message', async () => {
    const a = await ready([
      spec({
        claimMappings: { username: { claim: 'sub', prefix: '' } },
        userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'username cannot use reserved system: prefix' }],
      }),
    ]);
    await expect(a.authenticateToken(await idp.sign(claims({ sub: 'system:admin' })))).rejects.toThrow(
      "oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('system:')' failed: username cannot use reserved system: prefix",
    );
  });

  it("adds the token's jti as its credential id, also without extra mappings, for user validation rules to see", async () => {
    const revoked = "!(user.extra[?'authentication.plat.io/credential-id'][0].orValue('') in ['JTI=ea28ed49-revoked'])";
    const a = await ready([spec({ userValidationRules: [{ expression: revoked, message: 'credential is revoked' }] })]);
    expect((await a.authenticateToken(await idp.sign(claims({ jti: 'ea28ed49-2e11' }))))?.user).toEqual({
      username: 'oidc:alice',
      groups: [],
      extra: { 'authentication.plat.io/credential-id': ['JTI=ea28ed49-2e11'] },
    });
    await expect(a.authenticateToken(await idp.sign(claims({ jti: 'ea28ed49-revoked' })))).rejects.toThrow(
      `oidc: error evaluating user info validation rule: validation expression '${revoked}' failed: credential is revoked`,
    );
    // A jti that is not a non-empty string names no credential.
    for (const jti of [42, '']) expect((await a.authenticateToken(await idp.sign(claims({ jti }))))?.user.extra).toBeUndefined();
  });

  it('puts the credential id next to the extra mappings', async () => {
    const a = await ready([
      spec({
        claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }] },
      }),
    ]);
    expect((await a.authenticateToken(await idp.sign(claims({ jti: 'j1', tenant: 'blue' }))))?.user.extra).toEqual({
      'authentication.plat.io/credential-id': ['JTI=j1'],
      'example.com/tenant': ['blue'],
    });
  });

  it('refuses an empty username from an expression and, as Kubernetes does, accepts one from a claim', async () => {
    const byExpression = await ready([spec({ claimMappings: { username: { expression: 'claims.?nick.orValue("")' } } })]);
    await expect(byExpression.authenticateToken(await idp.sign(claims()))).rejects.toThrow('oidc: empty username via CEL expression is not allowed');
    const byClaim = await ready([spec({ claimMappings: { username: { claim: 'nick', prefix: '' } } })]);
    expect((await byClaim.authenticateToken(await idp.sign(claims({ nick: '' }))))?.user.username).toBe('');
  });
});

describe('JWT authenticator: issuer availability', () => {
  it('starts while the issuer is down, becomes ready when it comes up, and keeps keys when it goes away', async () => {
    const late = await startOidcProvider();
    await late.stop();
    const a = new JwtAuthenticator([spec({}, late)], { keySet: { initialRetryMs: 50, minUnknownKidRefreshMs: 0 } });
    open.push(a);
    a.start();
    // Polled: the first failed fetch comes after a connection attempt, later on a loaded machine.
    await waitFor(() => a.readiness()[0]!.error !== undefined);
    expect(a.readiness()[0]).toMatchObject({ ready: false, error: expect.stringContaining('oidc: fetching') });
    const token = await late.sign({ ...claims(), iss: late.url });
    await expect(a.authenticateToken(token)).rejects.toThrow('oidc: authenticator not initialized');
    await late.start();
    await waitFor(() => a.readiness()[0]!.ready);
    expect((await a.authenticateToken(token))?.user.username).toBe('oidc:alice');
    await late.stop();
    const second = await late.sign({ ...claims({ sub: 'bob' }), iss: late.url });
    expect((await a.authenticateToken(second))?.user.username).toBe('oidc:bob');
    await late.close();
  });

  it('stays not ready when discovery names another issuer', async () => {
    const other = await startOidcProvider();
    other.setDiscoveredIssuer('https://impostor.example');
    const a = new JwtAuthenticator([spec({}, other)], { keySet: { initialRetryMs: 50 } });
    open.push(a);
    a.start();
    await waitFor(() => a.readiness()[0]!.error !== undefined);
    expect(a.readiness()[0]!.error).toBe(
      `oidc: issuer did not match the issuer returned by provider, expected "${other.url}" got "https://impostor.example"`,
    );
    await other.close();
  });
});
