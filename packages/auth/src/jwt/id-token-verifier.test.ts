import fc from 'fast-check';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { IdTokenVerifier, goTimeString } from './id-token-verifier.js';
import { untrustedIssuer } from './untrusted-issuer.js';

// go-oidc v2's IDTokenVerifier.Verify and Kubernetes' audience check, with a local key set: the
// clock rule, the claim types, the issuer (Google's scheme-less one), audiences and algorithms,
// each with the text Kubernetes' oidc authenticator tests expect.

const issuer = 'https://auth.example.com';
const now = Date.UTC(2026, 0, 2, 3, 4, 5); // a whole second
const nowSeconds = now / 1000;
type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let rsa: Key;
let ps: Key;
let keys: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  const r = await generateKeyPair('RS256');
  const p = await generateKeyPair('PS256');
  rsa = r.privateKey;
  ps = p.privateKey;
  keys = createLocalJWKSet({
    keys: [
      { ...(await exportJWK(r.publicKey)), kid: 'rs', alg: 'RS256' },
      { ...(await exportJWK(p.publicKey)), kid: 'ps', alg: 'PS256' },
    ],
  });
});

const sign = (claims: JWTPayload, alg = 'RS256') =>
  new SignJWT(claims).setProtectedHeader({ alg, kid: alg === 'RS256' ? 'rs' : 'ps' }).sign(alg === 'RS256' ? rsa : ps);

function verifier(opts: { audiences?: string[]; algorithms?: string[]; issuer?: string } = {}) {
  return new IdTokenVerifier({
    issuer: opts.issuer ?? issuer,
    audiences: opts.audiences ?? ['my-client'],
    algorithms: opts.algorithms ?? ['RS256'],
    keys,
  });
}

const base = (over: Record<string, unknown> = {}) => ({ iss: issuer, aud: 'my-client', sub: 'jane', exp: nowSeconds + 600, ...over });

async function error(v: IdTokenVerifier, claims: Record<string, unknown>, alg?: string): Promise<string> {
  try {
    await v.verify(await sign(claims, alg), now);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('verified');
}

describe('IdTokenVerifier', () => {
  it('accepts exp up to the current second and nbf up to a minute ahead', async () => {
    const v = verifier();
    await expect(v.verify(await sign(base({ exp: nowSeconds })), now)).resolves.toMatchObject({ sub: 'jane' });
    expect(await error(v, base({ exp: nowSeconds - 1 }))).toBe('oidc: token is expired (Token Expiry: 2026-01-02 03:04:04 +0000 UTC)');
    await expect(v.verify(await sign(base({ nbf: nowSeconds + 60 })), now)).resolves.toBeTruthy();
    expect(await error(v, base({ nbf: nowSeconds + 61 }))).toBe(
      'oidc: current time 2026-01-02 03:04:05 +0000 UTC before the nbf (not before) time: 2026-01-02 03:05:06 +0000 UTC',
    );
    expect(await error(v, base({ exp: undefined }))).toBe('oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)');
    // Numeric dates may be fractional or quoted numbers, as go-oidc's jsonTime reads them.
    await expect(v.verify(await sign(base({ exp: nowSeconds + 0.5, nbf: `${nowSeconds}` })), now)).resolves.toBeTruthy();
  });

  it("checks one configured audience as go-oidc does and several as Kubernetes does", async () => {
    expect(await error(verifier(), base({ aud: ['not-my-client'] }))).toBe('oidc: expected audience "my-client" got ["not-my-client"]');
    expect(await error(verifier({ audiences: ['random-client', 'my-client'] }), base({ aud: 'not-my-client' }))).toBe(
      'oidc: expected audience in ["my-client" "random-client"] got ["not-my-client"]',
    );
    await expect(verifier({ audiences: ['random-client', 'my-client'] }).verify(await sign(base({ aud: ['x', 'my-client'] })), now)).resolves.toBeTruthy();
    expect(await error(verifier(), base({ aud: undefined }))).toBe('oidc: expected audience "my-client" got []');
  });

  it('names the algorithm it refuses', async () => {
    expect(await error(verifier(), base(), 'PS256')).toBe('oidc: id token signed with unsupported algorithm, expected ["RS256"] got "PS256"');
    await expect(verifier({ algorithms: ['RS256', 'PS256'] }).verify(await sign(base(), 'PS256'), now)).resolves.toBeTruthy();
  });

  it('requires the issuer, except Google without its scheme', async () => {
    expect(await error(verifier(), base({ iss: 'https://other.example.com' }))).toBe(
      'oidc: id token issued by a different provider, expected "https://auth.example.com" got "https://other.example.com"',
    );
    const google = verifier({ issuer: 'https://accounts.google.com' });
    await expect(google.verify(await sign(base({ iss: 'accounts.google.com' })), now)).resolves.toBeTruthy();
    await expect(google.verify(await sign(base({ iss: 'https://accounts.google.com' })), now)).resolves.toBeTruthy();
    expect(await error(verifier(), base({ iss: 'auth.example.com' }))).toBe(
      'oidc: id token issued by a different provider, expected "https://auth.example.com" got "auth.example.com"',
    );
  });

  it("refuses claims that do not fit go-oidc's idToken struct", async () => {
    const v = verifier();
    expect(await error(v, base({ sub: 42 }))).toBe('oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken.sub of type string');
    expect(await error(v, base({ aud: [1] }))).toBe('oidc: failed to unmarshal claims: json: cannot unmarshal number into Go value of type string');
    expect(await error(v, base({ exp: true }))).toBe('oidc: failed to unmarshal claims: json: cannot unmarshal bool into Go value of type json.Number');
    expect(await error(v, base({ _claim_names: { groups: 1 } }))).toBe(
      'oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken._claim_names of type string',
    );
    expect(await error(v, base({ _claim_names: { groups: 'src' }, _claim_sources: { src: { endpoint: 7 } } }))).toBe(
      'oidc: failed to unmarshal claims: json: cannot unmarshal number into Go struct field idToken._claim_sources.endpoint of type string',
    );
  });

  it('tries every key that fits a token without kid, as go-oidc does', async () => {
    const pairs = await Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
    const v = new IdTokenVerifier({
      issuer,
      audiences: ['my-client'],
      algorithms: ['RS256'],
      keys: createLocalJWKSet({ keys: await Promise.all(pairs.map(async (p) => ({ ...(await exportJWK(p.publicKey)), alg: 'RS256' }))) }),
    });
    const signedBy = (key: Key) => new SignJWT(base()).setProtectedHeader({ alg: 'RS256' }).sign(key);
    await expect(v.verify(await signedBy(pairs[1].privateKey), now)).resolves.toMatchObject({ sub: 'jane' });
    await expect(v.verify(await signedBy(rsa), now)).rejects.toThrow('failed to verify signature: failed to verify id token signature');
  });

  it('refuses a forged or malformed token before reading it', async () => {
    const v = verifier();
    const [h, , sig] = (await sign(base())).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify(base({ sub: 'root' }))).toString('base64url')}.${sig}`;
    await expect(v.verify(forged, now)).rejects.toThrow('failed to verify signature: failed to verify id token signature');
    await expect(v.verify('a.b', now)).rejects.toThrow(/^oidc: malformed jwt: /);
  });
});

describe('untrustedIssuer', () => {
  const token = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;

  it("reads the unverified iss for routing, Google's legacy one included", () => {
    expect(untrustedIssuer(token({ iss: issuer }))).toEqual({ issuer });
    expect(untrustedIssuer(token({ iss: 'accounts.google.com' }))).toEqual({ issuer: 'https://accounts.google.com' });
    expect(untrustedIssuer(token({ sub: 'x' }))).toEqual({ issuer: '' });
    expect(untrustedIssuer(token(null))).toEqual({ issuer: '' });
  });

  it("gives Kubernetes' reasons for what is not a compact JWT", () => {
    expect(untrustedIssuer(' {"payload":"x"}')).toEqual({ error: 'token is not compact JWT' });
    expect(untrustedIssuer('a.b')).toEqual({ error: 'malformed token' });
    expect(untrustedIssuer('a.b=c.d')).toEqual({ error: 'error decoding token: illegal base64 data at input byte 1' });
    expect(untrustedIssuer(token([1]))).toMatchObject({ error: expect.stringMatching(/^while unmarshaling token: json: cannot unmarshal array/) });
    expect(untrustedIssuer(token({ iss: 7 }))).toEqual({
      error: 'while unmarshaling token: json: cannot unmarshal number into Go struct field .iss of type string',
    });
  });
});

describe('goTimeString', () => {
  it("prints times as Go's time.Time String() in UTC", () => {
    expect(goTimeString(Date.UTC(2026, 10, 5, 6, 7, 8))).toBe('2026-11-05 06:07:08 +0000 UTC');
    expect(goTimeString(Date.UTC(2026, 10, 5, 6, 7, 8, 120))).toBe('2026-11-05 06:07:08.12 +0000 UTC');
  });
});

describe('token parsing under arbitrary input (property-based)', () => {
  it('untrustedIssuer answers an issuer or a reason for any string, never throwing', () => {
    const segment = fc.oneof(fc.base64String(), fc.string(), fc.json().map((j) => Buffer.from(j).toString('base64url')));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.tuple(segment, segment, segment).map((p) => p.join('.'))), (token) => {
        const r = untrustedIssuer(token);
        expect('issuer' in r ? typeof r.issuer : typeof r.error).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('IdTokenVerifier accepts or refuses any signed JSON payload with an error of its own, never a crash', async () => {
    const v = verifier({ audiences: ['my-client', 'other'] });
    const claim = fc.oneof(fc.jsonValue(), fc.constantFrom(issuer, 'my-client', nowSeconds, nowSeconds + 600));
    const payload = fc.record(
      { iss: claim, aud: fc.oneof(claim, fc.array(claim)), exp: claim, nbf: claim, sub: claim, _claim_names: fc.oneof(claim, fc.dictionary(fc.string(), claim)), _claim_sources: fc.oneof(claim, fc.dictionary(fc.string(), fc.dictionary(fc.constantFrom('endpoint', 'access_token', 'JWT'), claim))) },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(payload, async (claims) => {
        try {
          await v.verify(await sign(claims as JWTPayload), now);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect((err as Error).message).toMatch(/^oidc: /);
        }
      }),
      { numRuns: 150 },
    );
  });
});
