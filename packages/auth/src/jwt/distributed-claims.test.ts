import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import type { JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';
import { maxClaimSourceResponseBytes } from './distributed-claims.js';

// Distributed claims (OpenID Connect Core 1.0 §5.6.2) as Kubernetes' oidc authenticator resolves
// them for the groups claim, against claim sources served over real HTTPS by the test provider,
// with Kubernetes' error texts (plugin/pkg/authenticator/token/oidc, the groups-distributed cases).

let idp: TestOidcProvider;
let other: TestOidcProvider;
const open: JwtAuthenticator[] = [];
const seconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  idp = await startOidcProvider();
  other = await startOidcProvider();
});
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()));
  await idp.close();
  await other.close();
});

function spec(groupsClaim = 'groups', prefix = ''): JwtAuthenticatorSpec {
  return {
    issuer: { url: idp.url, certificateAuthority: idp.ca, audiences: ['my-client'] },
    claimMappings: { username: { claim: 'username', prefix: '' }, groups: { claim: groupsClaim, prefix } },
  };
}

async function ready(s = spec()): Promise<JwtAuthenticator> {
  const a = new JwtAuthenticator([s], { keySet: { initialRetryMs: 50, minUnknownKidRefreshMs: 0 } });
  open.push(a);
  a.start();
  const deadline = Date.now() + 15_000;
  while (!a.readiness()[0]!.ready) {
    if (Date.now() > deadline) throw new Error('keys did not load');
    await new Promise((r) => setTimeout(r, 20));
  }
  return a;
}

/** An ID token whose `claim` lives at `endpoint` (source src1, access token `<claim>_token`). */
function distributedToken(claim: string, endpoint: string, over: Record<string, unknown> = {}) {
  return idp.sign({
    iss: idp.url,
    aud: 'my-client',
    username: 'jane',
    _claim_names: { [claim]: 'src1' },
    _claim_sources: { src1: { endpoint, access_token: `${claim}_token` } },
    exp: seconds() + 600,
    ...over,
  });
}

/** Serves `path` with a JWT signed by `signer` holding `claims`, and records the bearer tokens it saw. */
function claimSource(path: string, claims: Record<string, unknown>, signer = idp): string[] {
  const seen: string[] = [];
  idp.route(path, async (req) => {
    seen.push(String(req.headers.authorization));
    return { body: await signer.sign(claims), contentType: 'application/jwt' };
  });
  return seen;
}

describe('distributed claims', () => {
  it('fetches the groups from the claim source with its access token and verifies its JWT', async () => {
    const seen = claimSource('/groups', { iss: idp.url, aud: 'my-client', groups: ['team1', 'team2'], exp: seconds() + 600 });
    const a = await ready(spec('groups', 'oidc:'));
    const result = await a.authenticateToken(await distributedToken('groups', `${idp.url}/groups`));
    expect(result?.user).toEqual({ username: 'jane', groups: ['oidc:team1', 'oidc:team2'] });
    expect(seen).toEqual(['Bearer groups_token']);
  });

  it('resolves a groups claim of any name', async () => {
    claimSource('/rabbits', { iss: idp.url, aud: 'my-client', rabbits: ['team1', 'team2'], exp: seconds() + 600 });
    const a = await ready(spec('rabbits'));
    expect((await a.authenticateToken(await distributedToken('rabbits', `${idp.url}/rabbits`)))?.user.groups).toEqual(['team1', 'team2']);
  });

  it('keeps a normal claim over a distributed one of the same name, without fetching', async () => {
    const seen = claimSource('/wins', { iss: idp.url, aud: 'my-client', groups: ['from-source'], exp: seconds() + 600 });
    const a = await ready();
    const token = await distributedToken('groups', `${idp.url}/wins`, { groups: ['team1'] });
    expect((await a.authenticateToken(token))?.user.groups).toEqual(['team1']);
    expect(seen).toEqual([]);
  });

  it('leaves an aggregated claim (a source with a JWT and no endpoint) alone', async () => {
    const a = await ready();
    const token = await idp.sign({
      iss: idp.url,
      aud: 'my-client',
      username: 'jane',
      _claim_names: { groups: 'src1' },
      _claim_sources: { src1: { JWT: 'e30.e30.' } },
      exp: seconds() + 600,
    });
    expect((await a.authenticateToken(token))?.user).toEqual({ username: 'jane', groups: [] });
  });

  it('fetches once for concurrent first uses of one token and remembers the groups with the token', async () => {
    const seen = claimSource('/once', { iss: idp.url, aud: 'my-client', groups: ['team1'], exp: seconds() + 600 });
    const a = await ready();
    const token = await distributedToken('groups', `${idp.url}/once`);
    const results = await Promise.all([a.authenticateToken(token), a.authenticateToken(token), a.authenticateToken(token)]);
    expect(results.map((r) => r?.user.groups)).toEqual([['team1'], ['team1'], ['team1']]);
    await a.authenticateToken(token);
    expect(seen).toHaveLength(1);
  });

  describe("refuses the token with Kubernetes' errors when", () => {
    it('a claim name points to a missing source, or the names have no sources', async () => {
      const a = await ready();
      const missing = await distributedToken('groups', `${idp.url}/groups`, {
        _claim_names: { groups: 'nonexistent-claim-source' },
      });
      await expect(a.authenticateToken(missing)).rejects.toThrow('oidc: verify token: oidc: source does not exist');
      const none = await idp.sign({ iss: idp.url, aud: 'my-client', username: 'jane', _claim_names: { groups: 'src1' }, exp: seconds() + 600 });
      await expect(a.authenticateToken(none)).rejects.toThrow('oidc: verify token: oidc: source does not exist');
      const empty = await idp.sign({ iss: idp.url, aud: 'my-client', username: 'jane', _claim_names: {}, exp: seconds() + 600 });
      await expect(a.authenticateToken(empty)).rejects.toThrow('oidc: could not expand distributed claims: oidc: no claim sources');
      const noName = await distributedToken('groups', `${idp.url}/groups`, { _claim_names: { groups: '' } });
      await expect(a.authenticateToken(noName)).rejects.toThrow('oidc: verify token: oidc: failed to obtain source from claim name');
    });

    it('the source cannot be reached or answers an error status', async () => {
      const a = await ready();
      const unreachable = 'https://127.0.0.1:1/groups';
      await expect(a.authenticateToken(await distributedToken('groups', unreachable))).rejects.toThrow(
        new RegExp(`^oidc: could not expand distributed claims: while getting distributed claim "groups": Get "${unreachable}": .*ECONNREFUSED`),
      );
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/no-such-source`))).rejects.toThrow(
        'oidc: could not expand distributed claims: while getting distributed claim "groups": error while getting distributed claim JWT: 404 Not Found',
      );
    });

    it('the source answers something that is not a JWT, or too much', async () => {
      idp.route('/not-a-jwt', () => ({ body: '{"groups": ["team1"]}' }));
      idp.route('/huge', () => ({ body: 'x'.repeat(maxClaimSourceResponseBytes + 1) }));
      const a = await ready();
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/not-a-jwt`))).rejects.toThrow(
        `oidc: could not expand distributed claims: getting untrusted issuer from endpoint ${idp.url}/not-a-jwt failed for claim "groups": token is not compact JWT`,
      );
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/huge`))).rejects.toThrow(
        `oidc: could not expand distributed claims: while getting distributed claim "groups": the response is larger than ${maxClaimSourceResponseBytes} bytes`,
      );
    });

    it("the source's JWT lacks the claim", async () => {
      claimSource('/lacking', { iss: idp.url, aud: 'my-client', exp: seconds() + 600 });
      const a = await ready();
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/lacking`))).rejects.toThrow(
        `oidc: could not expand distributed claims: jwt returned by distributed claim endpoint "${idp.url}/lacking" did not contain claim: groups`,
      );
    });

    it("the source's JWT is signed for another audience, has expired, or is forged", async () => {
      claimSource('/other-audience', { iss: idp.url, aud: 'your-client', groups: ['team1'], exp: seconds() + 600 });
      claimSource('/expired', { iss: idp.url, aud: 'my-client', groups: ['team1'], exp: seconds() - 60 });
      const a = await ready();
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/other-audience`))).rejects.toThrow(
        'oidc: could not expand distributed claims: verify distributed claim token: oidc: expected audience "my-client" got ["your-client"]',
      );
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/expired`))).rejects.toThrow(
        /^oidc: could not expand distributed claims: verify distributed claim token: oidc: token is expired \(Token Expiry: .* \+0000 UTC\)$/,
      );
      // Signed by another provider's key while naming this issuer.
      claimSource('/forged', { iss: idp.url, aud: 'my-client', groups: ['system:masters'], exp: seconds() + 600 }, other);
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/forged`))).rejects.toThrow(
        'oidc: could not expand distributed claims: verify distributed claim token: failed to verify signature: failed to verify id token signature',
      );
    });

    it("the source's JWT names another issuer", async () => {
      claimSource('/foreign', { iss: other.url, aud: 'my-client', groups: ['team1'], exp: seconds() + 600 }, other);
      const a = await ready();
      await expect(a.authenticateToken(await distributedToken('groups', `${idp.url}/foreign`))).rejects.toThrow(
        `oidc: could not expand distributed claims: verifying untrusted issuer ${other.url} failed: distributed claims are accepted from the issuer "${idp.url}" only`,
      );
    });
  });
});
