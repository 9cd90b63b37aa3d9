import type { AuthorizationFlags, OIDCFlags } from '@plat/config';

/**
 * The authentication and authorization options of kube-apiserver that plat's apiserver has (its
 * BuiltInAuthenticationOptions and BuiltInAuthorizationOptions): the two configuration files,
 * `--anonymous-auth`, the `--oidc-*` flags and the older `--authorization-mode` /
 * `--authorization-webhook-*` flags, as parsed from the command line (an app declares and parses
 * the flags; `validateLegacyFlags` and `validateAuthorizationFlags` of @plat/config check them).
 */
export interface AuthOptions {
  /** --authentication-config (absolute path) */
  authenticationConfigFile?: string;
  /** --authorization-config (absolute path) */
  authorizationConfigFile?: string;
  /** --anonymous-auth as given; undefined when not set (Kubernetes' default: true). */
  anonymousAuth?: boolean;
  /** --oidc-* (the CA as a path: read at start). */
  oidc: Omit<OIDCFlags, 'caContent'> & { caFile?: string; signingAlgs: string[] };
  /** --authorization-mode and --authorization-webhook-*, for the configuration built from flags. */
  authorization: AuthorizationFlags & { modes: string[] };
  /** Names of the auth flags given on the command line (for validateLegacyFlags). */
  setFlags: string[];
}

/**
 * kube-apiserver's default of --authorization-mode is AlwaysAllow (every installer passes
 * `Node,RBAC`); plat's server defaults to RBAC over the bootstrap policy, so the admin
 * (system:masters) may do everything and other users what bindings give them.
 */
export const defaultAuthorizationMode = 'RBAC';

/** The authorizer types {@link buildAuthorization} builds, after the built-in rules. */
export const supportedAuthorizerTypes: readonly string[] = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];

/** --oidc-signing-algs when not given (kube-apiserver's default). */
export const defaultOidcSigningAlgs: readonly string[] = ['RS256'];
