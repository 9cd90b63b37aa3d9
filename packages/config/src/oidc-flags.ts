/**
 * The `--oidc-*` flags as an AuthenticationConfiguration, the way kube-apiserver converts them
 * (pkg/kubeapiserver/options/authentication.go), so that flags and file go through one validator
 * and one authenticator. The spec's username rules 2 and 3 describe the defaults:
 * - the username claim defaults to `sub`;
 * - `--oidc-username-prefix=-` means no prefix; an unset prefix is `<issuer-url>#` unless the
 *   claim is `email`, where it is empty.
 */
import { fieldError } from '@plat/api-model';
import { loadAuthenticationConfiguration, type AuthenticationConfiguration, type AuthenticationLoadOptions } from './authentication.js';
import { fileError, type LoadResult } from './document.js';
import { apiVersion } from './schemas.js';

export interface OIDCFlags {
  /** --oidc-issuer-url */
  issuerURL?: string;
  /** --oidc-client-id (the single audience) */
  clientID?: string;
  /** Contents of the --oidc-ca-file (the app reads the file). */
  caContent?: string;
  /** --oidc-username-claim; default `sub`. */
  usernameClaim?: string;
  /** --oidc-username-prefix; `-` disables prefixing. */
  usernamePrefix?: string;
  /** --oidc-groups-claim */
  groupsClaim?: string;
  /** --oidc-groups-prefix */
  groupsPrefix?: string;
  /** --oidc-required-claim key=value pairs */
  requiredClaims?: Readonly<Record<string, string>>;
}

export const defaultOIDCUsernameClaim = 'sub';

/** The username prefix kube-apiserver derives from the flags. */
export function oidcUsernamePrefix(flags: Pick<OIDCFlags, 'issuerURL' | 'usernameClaim' | 'usernamePrefix'>): string {
  const claim = flags.usernameClaim || defaultOIDCUsernameClaim;
  if (flags.usernamePrefix === '-') return '';
  if (!flags.usernamePrefix && claim !== 'email') return `${flags.issuerURL ?? ''}#`;
  return flags.usernamePrefix ?? '';
}

/**
 * Builds and validates the AuthenticationConfiguration the flags stand for: one JWT authenticator
 * when --oidc-issuer-url and --oidc-client-id are given, none when neither is.
 */
export function authenticationConfigurationFromOIDCFlags(
  flags: OIDCFlags,
  options: AuthenticationLoadOptions = {},
): LoadResult<AuthenticationConfiguration> {
  const issuerURL = flags.issuerURL ?? '';
  const clientID = flags.clientID ?? '';
  if ((issuerURL === '') !== (clientID === '')) {
    return { ok: false, errors: [fileError('oidc-issuer-url and oidc-client-id must be specified together')], warnings: [] };
  }
  if (issuerURL === '') {
    return { ok: true, config: { apiVersion, kind: 'AuthenticationConfiguration', jwt: [] }, warnings: [] };
  }
  const jwt: Record<string, unknown> = {
    issuer: {
      url: issuerURL,
      audiences: [clientID],
      ...(flags.caContent ? { certificateAuthority: flags.caContent } : {}),
    },
    claimMappings: {
      username: { claim: flags.usernameClaim || defaultOIDCUsernameClaim, prefix: oidcUsernamePrefix(flags) },
      ...(flags.groupsClaim ? { groups: { claim: flags.groupsClaim, prefix: flags.groupsPrefix ?? '' } } : {}),
    },
  };
  const required = Object.entries(flags.requiredClaims ?? {});
  if (required.length > 0) {
    jwt.claimValidationRules = required.map(([claim, requiredValue]) => ({ claim, requiredValue }));
  }
  const document = { apiVersion, kind: 'AuthenticationConfiguration', jwt: [jwt] };
  const result = loadAuthenticationConfiguration(JSON.stringify(document), options);
  if (result.ok) return result;
  // Name the flag behind each field, since there is no file to point into.
  const flagOf: [RegExp, string][] = [
    [/^jwt\[0\]\.issuer\.url/, '--oidc-issuer-url'],
    [/^jwt\[0\]\.issuer\.audiences/, '--oidc-client-id'],
    [/^jwt\[0\]\.issuer\.certificateAuthority/, '--oidc-ca-file'],
    [/^jwt\[0\]\.claimMappings\.username/, '--oidc-username-claim'],
    [/^jwt\[0\]\.claimMappings\.groups/, '--oidc-groups-claim'],
    [/^jwt\[0\]\.claimValidationRules/, '--oidc-required-claim'],
  ];
  return {
    ok: false,
    errors: result.errors.map((e) => {
      const flag = flagOf.find(([re]) => re.test(e.field))?.[1];
      return flag ? fieldError.invalid(flag, e.badValue, e.detail || e.body()) : e;
    }),
    warnings: result.warnings,
  };
}
