/**
 * kube-apiserver's cross-checks between the configuration files and the older flags they replace,
 * with its messages (pkg/kubeapiserver/options/authentication.go and authorization.go):
 * - `--authentication-config` excludes every `--oidc-*` flag;
 * - `--authorization-config` excludes `--authorization-mode` and `--authorization-webhook-*`;
 * - `--anonymous-auth` excludes an `anonymous` section in the authentication configuration.
 */
import type { AuthenticationConfiguration } from './authentication.js';

export interface LegacyFlagInput {
  /** Value of --authentication-config, if given. */
  authenticationConfig?: string;
  /** Value of --authorization-config, if given. */
  authorizationConfig?: string;
  /** Names (without dashes) of the flags set explicitly on the command line, e.g. `oidc-issuer-url`. */
  setFlags: Iterable<string>;
  /** The loaded authentication configuration, for the anonymous-section check. */
  authentication?: Pick<AuthenticationConfiguration, 'anonymous'>;
}

export const oidcFlagsConflictMessage = 'authentication-config file and oidc-* flags are mutually exclusive';
export const authorizationFlagsConflictMessage =
  '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
export const anonymousFlagConflictMessage =
  'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file';

/** Returns the conflicts as kube-apiserver's error messages; empty when there are none. */
export function validateLegacyFlags(input: LegacyFlagInput): string[] {
  const set = new Set([...input.setFlags].map((f) => f.replace(/^-+/, '').split('=')[0]!));
  const errors: string[] = [];
  if (input.authenticationConfig && [...set].some((f) => f.startsWith('oidc-'))) errors.push(oidcFlagsConflictMessage);
  if (input.authorizationConfig && (set.has('authorization-mode') || [...set].some((f) => f.startsWith('authorization-webhook-')))) {
    errors.push(authorizationFlagsConflictMessage);
  }
  if (set.has('anonymous-auth') && input.authentication?.anonymous) errors.push(anonymousFlagConflictMessage);
  return errors;
}
