import fs from 'node:fs/promises';
import type { Registry } from 'prom-client';
import { ConfigReloader, WebhookMetrics, type RbacRuleResolver } from '@plat/auth';
import type { Authenticator, Authorizer } from '@plat/auth';
import type { AuthOptions } from './auth-options.js';
import { buildAuthentication, jwtNotReady, loadAuthentication, type AuthenticationParts } from './authentication.js';
import { buildAuthorization, loadAuthorization, type AuthorizationHooks } from './authorization.js';
import { AuthenticationConfigError, IdentityFileError } from './identity-errors.js';
import { ServerIdentity } from './server-identity.js';

export interface IdentityOptions extends AuthenticationParts {
  registry: Registry;
  /**
   * The server's --request-timeout in ms (0 = none): a replaced authenticator or authorizer is
   * closed once requests that started with it have ended, 5 s after it (65 s without a timeout).
   */
  requestTimeoutMs: number;
  /** How often the configuration files are checked for changes (default 1 s; not a flag). */
  reloadIntervalMs?: number;
  /** How long a reloaded JWT configuration may take to load its issuers' keys before the reload is refused (default 10 s). */
  reloadReadyTimeoutMs?: number;
  /** Egress (controlplane dialer) and tracing for the authorizers. */
  authorizerHooks?: AuthorizationHooks;
  /** The server's RBAC objects, for `type: RBAC` (createServedResources' `rbacResolver`). */
  rbacResolver?: RbacRuleResolver;
}

async function readText(flag: string, file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new IdentityFileError(`${flag}: ${(err as Error).message}`);
  }
}

async function waitForIssuers(instance: { jwt: { readiness(): { ready: boolean }[] } }, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (instance.jwt.readiness().some((r) => !r.ready)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** The server's identity: stable authenticator and authorizer over reloadable instances. */
export interface Identity {
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** Stops watching the files and closes every instance (server stop, after the server closed). */
  close(): Promise<void>;
}

/**
 * Builds the first authentication and authorization instances from the options and files, and
 * watches `--authentication-config` / `--authorization-config`: a changed, valid version replaces
 * the instance (requests in flight keep theirs: {@link ServerIdentity}); an invalid one is logged
 * and the previous stays in force. Start-up problems throw AuthenticationConfigError,
 * AuthorizationConfigError or IdentityFileError.
 */
export async function startIdentity(auth: AuthOptions, opts: IdentityOptions): Promise<Identity> {
  const identity = new ServerIdentity(opts.requestTimeoutMs > 0 ? opts.requestTimeoutMs + 5_000 : 65_000);
  const { logger, registry } = opts;
  const authnText = await readText('--authentication-config', auth.authenticationConfigFile);
  const authzText = await readText('--authorization-config', auth.authorizationConfigFile);
  const webhookMetrics = new WebhookMetrics(registry);

  const authn = buildAuthentication(await loadAuthentication(auth, authnText, logger), auth, opts);
  let authz;
  try {
    authz = buildAuthorization(loadAuthorization(auth, authzText, logger), webhookMetrics, opts.authorizerHooks, opts.rbacResolver);
  } catch (err) {
    await authn.close();
    throw err;
  }
  // Keys load in the background: the server serves meanwhile and is ready, as kube-apiserver is
  // (its JWT authenticators' health decides a reload, not /readyz); an issuer's tokens get 401 until then.
  authn.jwt.start();
  identity.setAuthentication(authn);
  identity.setAuthorization(authz);

  const reloaders: ConfigReloader<unknown>[] = [];
  const onReload = (kind: string, file: string) => (event: { ok: boolean; error?: Error }) => {
    if (event.ok) logger.info(`Loaded a new ${kind} configuration`, { file }, 0);
    else logger.error(`Keeping the current ${kind} configuration: the new version of the file is not usable`, { file, err: event.error?.message });
  };
  if (auth.authenticationConfigFile) {
    reloaders.push(
      new ConfigReloader({
        path: auth.authenticationConfigFile,
        kind: 'authentication',
        initialText: authnText,
        intervalMs: opts.reloadIntervalMs,
        registry,
        load: (text) => loadAuthentication(auth, text, logger),
        apply: async (config) => {
          const next = buildAuthentication(config, auth, opts);
          next.jwt.start();
          // Swap only once the new issuers' keys are there, so that JWT users see no gap.
          if (!(await waitForIssuers(next, opts.reloadReadyTimeoutMs ?? 10_000))) {
            const problem = jwtNotReady(next.jwt);
            await next.close();
            throw new AuthenticationConfigError(problem ?? '');
          }
          identity.setAuthentication(next);
        },
        onReload: onReload('authentication', auth.authenticationConfigFile),
      }) as ConfigReloader<unknown>,
    );
  }
  if (auth.authorizationConfigFile) {
    identity.pinAuthorizationPerRequest();
    reloaders.push(
      new ConfigReloader({
        path: auth.authorizationConfigFile,
        kind: 'authorization',
        initialText: authzText,
        intervalMs: opts.reloadIntervalMs,
        registry,
        load: async (text) => loadAuthorization(auth, text, logger),
        apply: (config) => identity.setAuthorization(buildAuthorization(config, webhookMetrics, opts.authorizerHooks, opts.rbacResolver)),
        onReload: onReload('authorization', auth.authorizationConfigFile),
      }) as ConfigReloader<unknown>,
    );
  }
  for (const r of reloaders) r.start();
  return {
    authenticator: identity.authenticator,
    authorizer: identity.authorizer,
    async close() {
      for (const r of reloaders) r.stop();
      await identity.close();
    },
  };
}
