import type { JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';

/** The `--oidc-*` flags of kube-apiserver (CA as file contents: the app reads `--oidc-ca-file`). */
export interface LegacyOidcFlags {
  issuerURL: string;
  clientID: string;
  usernameClaim?: string;
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  /** `--oidc-required-claim key=value`, repeatable. */
  requiredClaims?: Record<string, string>;
  caPem?: string;
  signingAlgs?: string[];
}

/**
 * Builds the JWT authenticator the flags describe, so flags and the configuration file share one
 * code path. Defaults as the spec's username rules and kube-apiserver: username claim `sub`;
 * username prefix `-` means none, unset means `<issuer>#` unless the claim is `email`; groups
 * prefix only with a groups claim; signing algorithms default to RS256.
 */
export function legacyOidcFlagsToSpec(flags: LegacyOidcFlags): { spec: JwtAuthenticatorSpec; signingAlgorithms: string[] } {
  const usernameClaim = flags.usernameClaim || 'sub';
  let usernamePrefix: string;
  if (flags.usernamePrefix === '-') usernamePrefix = '';
  else if (flags.usernamePrefix) usernamePrefix = flags.usernamePrefix;
  else usernamePrefix = usernameClaim === 'email' ? '' : `${flags.issuerURL}#`;

  const spec: JwtAuthenticatorSpec = {
    issuer: {
      url: flags.issuerURL,
      audiences: [flags.clientID],
      ...(flags.caPem ? { certificateAuthority: flags.caPem } : {}),
    },
    claimMappings: {
      username: { claim: usernameClaim, prefix: usernamePrefix },
      ...(flags.groupsClaim ? { groups: { claim: flags.groupsClaim, prefix: flags.groupsPrefix ?? '' } } : {}),
    },
  };
  const required = Object.entries(flags.requiredClaims ?? {});
  if (required.length) {
    spec.claimValidationRules = required
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([claim, requiredValue]) => ({ claim, requiredValue }));
  }
  return { spec, signingAlgorithms: flags.signingAlgs?.length ? flags.signingAlgs : ['RS256'] };
}
