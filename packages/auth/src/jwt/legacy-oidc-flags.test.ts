import { startOidcProvider } from '../../test/oidc-provider.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import { legacyOidcFlagsToSpec } from './legacy-oidc-flags.js';

describe('legacy --oidc-* flags', () => {
  it('default the username claim to sub with an issuer# prefix', () => {
    const { spec, signingAlgorithms } = legacyOidcFlagsToSpec({ issuerURL: 'https://idp', clientID: 'plat' });
    expect(spec.claimMappings.username).toEqual({ claim: 'sub', prefix: 'https://idp#' });
    expect(spec.issuer.audiences).toEqual(['plat']);
    expect(signingAlgorithms).toEqual(['RS256']);
  });

  it('use no prefix for email and for "-"', () => {
    expect(legacyOidcFlagsToSpec({ issuerURL: 'https://idp', clientID: 'c', usernameClaim: 'email' }).spec.claimMappings.username).toEqual({
      claim: 'email',
      prefix: '',
    });
    expect(legacyOidcFlagsToSpec({ issuerURL: 'https://idp', clientID: 'c', usernamePrefix: '-' }).spec.claimMappings.username.prefix).toBe('');
    expect(legacyOidcFlagsToSpec({ issuerURL: 'https://idp', clientID: 'c', usernamePrefix: 'corp:' }).spec.claimMappings.username.prefix).toBe('corp:');
  });

  it('authenticate through the same code path as the configuration file', async () => {
    const idp = await startOidcProvider();
    const { spec, signingAlgorithms } = legacyOidcFlagsToSpec({
      issuerURL: idp.url,
      clientID: 'plat',
      groupsClaim: 'groups',
      groupsPrefix: 'idp:',
      requiredClaims: { hd: 'example.com' },
      caPem: idp.ca,
    });
    const a = new JwtAuthenticator([spec], { signingAlgorithms, keySet: { initialRetryMs: 50 } });
    a.start();
    try {
      const deadline = Date.now() + 10_000;
      while (!a.readiness()[0]!.ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const exp = Math.floor(Date.now() / 1000) + 300;
      const token = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'u1', exp, groups: 'admins', hd: 'example.com' });
      expect((await a.authenticateToken(token))?.user).toEqual({ username: `${idp.url}#u1`, groups: ['idp:admins'] });
      await idp.addKey('ES256');
      const es = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'u1', exp, hd: 'example.com' }, { alg: 'ES256' });
      await expect(a.authenticateToken(es)).rejects.toThrow(/oidc: verify token/);
    } finally {
      await a.close();
      await idp.close();
    }
  });
});
