import fs from 'node:fs/promises';
import type { Registry } from 'prom-client';
import { goQuote } from '@plat/api-model';
import {
  JwtAuthenticator,
  createBearerTokenAuthenticator,
  createUnionAuthenticator,
  createUnionTokenAuthenticator,
  withAnonymous,
  type AnonymousSpec,
  type Authenticator,
  type JwtAuthenticatorOptions,
  type TokenAuthenticator,
} from '@plat/auth';
import {
  authenticationConfigurationFromOIDCFlags,
  loadAuthenticationConfiguration,
  type AuthenticationConfiguration,
  type LoadResult,
} from '@plat/config';
import type { ServerLogger } from '@plat/server';
import type { AuthOptions } from './auth-options.js';
import { AuthenticationConfigError } from './identity-errors.js';

/** One built authentication configuration: the request authenticator and the JWT part to start and close. */
export interface AuthenticationInstance {
  authenticator: Authenticator;
  jwt: JwtAuthenticator;
  close(): Promise<void>;
}

export interface AuthenticationParts {
  /** The client-certificate authenticator (--client-ca-file), first in the union. */
  x509?: Authenticator;
  /** The static token file (--token-auth-file), the first token authenticator. */
  tokenFile?: TokenAuthenticator;
  registry: Registry;
  logger: ServerLogger;
  /** Test knobs for discovery and key refresh (not flags). */
  keySet?: JwtAuthenticatorOptions['keySet'];
}

function loadResultOrThrow<T>(result: LoadResult<T>, source: string, logger: ServerLogger): T {
  for (const w of result.warnings) logger.info(`${source}: ${w}`, {}, 0);
  if (!result.ok) throw new AuthenticationConfigError(`${source} is invalid:\n${result.errors.map((e) => `  ${e.toString()}`).join('\n')}`);
  return result.config;
}

/** The configuration the flags stand for: the file, or the --oidc-* flags (the same validator either way). */
export async function loadAuthentication(auth: AuthOptions, text: string | undefined, logger: ServerLogger): Promise<AuthenticationConfiguration> {
  const options = { anonymousAuthFlagSet: auth.anonymousAuth !== undefined };
  if (auth.authenticationConfigFile) {
    return loadResultOrThrow(loadAuthenticationConfiguration(text ?? '', options), `--authentication-config ${auth.authenticationConfigFile}`, logger);
  }
  let caContent: string | undefined;
  if (auth.oidc.caFile) {
    try {
      caContent = await fs.readFile(auth.oidc.caFile, 'utf8');
    } catch (err) {
      throw new AuthenticationConfigError(`--oidc-ca-file: ${(err as Error).message}`);
    }
  }
  const { caFile: _caFile, signingAlgs: _algs, ...flags } = auth.oidc;
  return loadResultOrThrow(authenticationConfigurationFromOIDCFlags({ ...flags, caContent }, options), 'the --oidc-* flags', logger);
}

/**
 * The anonymous settings in force: the file's `anonymous` section when it has one, else the
 * `--anonymous-auth` flag (default true), which kube-apiserver turns off next to AlwaysAllow.
 */
export function anonymousSpec(config: AuthenticationConfiguration, auth: AuthOptions, logger?: ServerLogger): AnonymousSpec {
  if (config.anonymous) return config.anonymous;
  let enabled = auth.anonymousAuth ?? true;
  if (enabled && !auth.authorizationConfigFile && auth.authorization.modes.includes('AlwaysAllow')) {
    logger?.info('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer', {}, 0);
    enabled = false;
  }
  return { enabled, conditions: [] };
}

/**
 * Builds the request authenticator of one configuration, in kube-apiserver's order: client
 * certificate, then the bearer token authenticators (token file, JWT), then anonymous, which
 * only serves requests without any credential (an invalid credential stays a 401). The JWT
 * authenticators use the CEL programs @plat/config compiled.
 */
export function buildAuthentication(config: AuthenticationConfiguration, auth: AuthOptions, parts: AuthenticationParts): AuthenticationInstance {
  const jwt = new JwtAuthenticator(config.jwt, {
    // The --oidc-signing-algs flag applies to the flag-built authenticator; a file accepts every asymmetric algorithm.
    ...(auth.authenticationConfigFile ? {} : { signingAlgorithms: auth.oidc.signingAlgs }),
    registry: parts.registry,
    keySet: parts.keySet,
    onError: (issuer, err) => parts.logger.error('JWT authenticator: cannot load the issuer keys', { issuer, err: err.message }),
  });
  const tokens: TokenAuthenticator[] = [...(parts.tokenFile ? [parts.tokenFile] : []), ...(config.jwt.length ? [jwt] : [])];
  const credentials = createUnionAuthenticator([...(parts.x509 ? [parts.x509] : []), ...(tokens.length ? [createBearerTokenAuthenticator(createUnionTokenAuthenticator(tokens))] : [])]);
  return {
    authenticator: withAnonymous(credentials, anonymousSpec(config, auth, parts.logger)),
    jwt,
    close: () => jwt.close(),
  };
}

/** Why a reloaded configuration is refused: every JWT issuer whose keys have not loaded yet. */
export function jwtNotReady(jwt: JwtAuthenticator): string | undefined {
  const waiting = jwt.readiness().filter((r) => !r.ready);
  if (waiting.length === 0) return undefined;
  return waiting.map((r) => `JWT authenticator for issuer ${goQuote(r.issuer)} is not initialized${r.error ? `: ${r.error}` : ''}`).join('; ');
}
