import { authenticationConfigurationFromOIDCFlags, oidcUsernamePrefix } from './oidc-flags.js';

describe('--oidc-* flags as an AuthenticationConfiguration', () => {
  it('derives the username prefix as kube-apiserver does', () => {
    expect(oidcUsernamePrefix({ issuerURL: 'https://i.example' })).toBe('https://i.example#');
    expect(oidcUsernamePrefix({ issuerURL: 'https://i.example', usernameClaim: 'email' })).toBe('');
    expect(oidcUsernamePrefix({ issuerURL: 'https://i.example', usernamePrefix: '-' })).toBe('');
    expect(oidcUsernamePrefix({ issuerURL: 'https://i.example', usernameClaim: 'email', usernamePrefix: 'oidc:' })).toBe('oidc:');
  });

  it('builds one JWT authenticator with claim sub by default', () => {
    const r = authenticationConfigurationFromOIDCFlags({
      issuerURL: 'https://i.example',
      clientID: 'plat',
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      requiredClaims: { hd: 'example.com' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.jwt).toEqual([
      {
        issuer: { url: 'https://i.example', audiences: ['plat'] },
        claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
        claimMappings: { username: { claim: 'sub', prefix: 'https://i.example#' }, groups: { claim: 'groups', prefix: 'oidc:' }, extra: [] },
        userValidationRules: [],
      },
    ]);
  });

  it('needs issuer and client id together, and nothing without them', () => {
    const half = authenticationConfigurationFromOIDCFlags({ issuerURL: 'https://i.example' });
    expect(half.ok).toBe(false);
    if (!half.ok) expect(half.errors.map(String)).toEqual(['oidc-issuer-url and oidc-client-id must be specified together']);
    const none = authenticationConfigurationFromOIDCFlags({});
    expect(none.ok && none.config.jwt).toEqual([]);
  });

  it('reports problems against the flag', () => {
    const r = authenticationConfigurationFromOIDCFlags({ issuerURL: 'http://i.example', clientID: 'plat', caContent: 'garbage' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map(String)).toEqual([
        '--oidc-issuer-url: Invalid value: "http://i.example": URL scheme must be https',
        '--oidc-ca-file: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
      ]);
    }
  });
});
