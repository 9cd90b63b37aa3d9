import { validateLegacyFlags } from './legacy-flags.js';

describe('legacy flag cross-checks', () => {
  it('rejects --oidc-* flags with --authentication-config', () => {
    expect(validateLegacyFlags({ authenticationConfig: '/etc/authn.yaml', setFlags: ['oidc-issuer-url', 'authentication-config'] })).toEqual([
      'authentication-config file and oidc-* flags are mutually exclusive',
    ]);
    expect(validateLegacyFlags({ setFlags: ['--oidc-issuer-url=https://x'] })).toEqual([]);
    expect(validateLegacyFlags({ authenticationConfig: '/etc/authn.yaml', setFlags: ['authentication-config'] })).toEqual([]);
  });

  it('rejects --authorization-mode and --authorization-webhook-* with --authorization-config', () => {
    const message = '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
    expect(validateLegacyFlags({ authorizationConfig: '/a.yaml', setFlags: ['authorization-mode'] })).toEqual([message]);
    expect(validateLegacyFlags({ authorizationConfig: '/a.yaml', setFlags: ['--authorization-webhook-cache-authorized-ttl=1m'] })).toEqual([message]);
    expect(validateLegacyFlags({ setFlags: ['authorization-mode'] })).toEqual([]);
  });

  it('rejects --anonymous-auth with an anonymous section', () => {
    expect(validateLegacyFlags({ authenticationConfig: '/a', setFlags: ['anonymous-auth'], authentication: { anonymous: { enabled: true, conditions: [] } } })).toEqual([
      'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
    ]);
    expect(validateLegacyFlags({ authenticationConfig: '/a', setFlags: ['anonymous-auth'], authentication: {} })).toEqual([]);
  });
});
