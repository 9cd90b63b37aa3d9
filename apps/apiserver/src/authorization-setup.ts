import {
  WebhookAuthorizer,
  WebhookMetrics,
  createAlwaysAllowAuthorizer,
  createAlwaysDenyAuthorizer,
  createAuthorizerChain,
  createBuiltinAuthorizer,
  createNodeAuthorizer,
  type Authorizer,
  type NamedAuthorizer,
  type WebhookAuthorizerOptions,
  type WebhookConnection,
} from '@plat/auth';
import { loadKubeConfig, resolveRestConfig } from '@plat/client';
import {
  authorizationConfigurationFromFlags,
  loadAuthorizationConfiguration,
  type AuthorizationConfiguration,
  type AuthorizerConfiguration,
  type LoadResult,
} from '@plat/config';
import { supportedAuthorizerTypes, type AuthOptions } from './auth-options.js';
import type { Logger } from './logger.js';

export interface AuthorizationInstance {
  authorizer: Authorizer;
  close(): Promise<void>;
}

/** A start-up or reload problem in the authorization configuration. */
export class AuthorizationConfigError extends Error {}

function loadResultOrThrow<T>(result: LoadResult<T>, source: string, logger: Logger): T {
  for (const w of result.warnings) logger.info(`${source}: ${w}`, {}, 0);
  if (!result.ok) throw new AuthorizationConfigError(`${source} is invalid:\n${result.errors.map((e) => `  ${e.toString()}`).join('\n')}`);
  return result.config;
}

/** The configuration in force: the --authorization-config file, or the one --authorization-mode and --authorization-webhook-* stand for. */
export function loadAuthorization(auth: AuthOptions, text: string | undefined, logger: Logger): AuthorizationConfiguration {
  const options = { supportedTypes: supportedAuthorizerTypes };
  if (auth.authorizationConfigFile) {
    return loadResultOrThrow(loadAuthorizationConfiguration(text ?? '', options), `--authorization-config ${auth.authorizationConfigFile}`, logger);
  }
  return loadResultOrThrow(authorizationConfigurationFromFlags(auth.authorization, options), 'the --authorization-mode flags', logger);
}

/**
 * A webhook's connection from its PlatConfig file (kubeconfig format, current context): server,
 * certificate-authority(-data), tls-server-name, client certificate and key, token.
 */
export function webhookConnection(authorizer: AuthorizerConfiguration): WebhookConnection {
  const info = authorizer.webhook!.connectionInfo;
  if (info.type !== 'PlatConfigFile') {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: connectionInfo.type InClusterConfig needs the server to run inside a cluster, which plat's apiserver never does; use PlatConfigFile`);
  }
  let rest;
  try {
    rest = resolveRestConfig(loadKubeConfig({ explicitPath: info.platConfigFile }), {}, 'apiserver');
  } catch (err) {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: platConfigFile ${info.platConfigFile}: ${(err as Error).message}`);
  }
  if (!/^https:\/\//.test(rest.server)) {
    throw new AuthorizationConfigError(`authorizer ${JSON.stringify(authorizer.name)}: platConfigFile ${info.platConfigFile}: the webhook server must be an https:// URL, got ${JSON.stringify(rest.server)}`);
  }
  return {
    server: rest.server,
    ca: rest.ca,
    cert: rest.cert,
    key: rest.key,
    token: rest.token,
    tlsServerName: rest.tlsServerName,
    insecureSkipTLSVerify: rest.insecureSkipTlsVerify,
  };
}

/** Counts every authorizer's decisions in the webhook metrics' decisions counter (type and name labels). */
function counted(type: string, name: string, authorizer: Authorizer, metrics: WebhookMetrics): Authorizer {
  const count = metrics.decisionCounter(type, name);
  return {
    async authorize(attrs, opts) {
      const result = await authorizer.authorize(attrs, opts);
      count(result.decision);
      return result;
    },
  };
}

/**
 * The authorizer chain of one configuration: the built-in rules first, then each configured
 * authorizer in order (first Allow or Deny wins; no opinion from all is a denial).
 */
/**
 * What the egress and tracing setup adds to the authorizers (egress-tracing-setup.ts): the
 * `controlplane` dialer and traceparent headers for webhooks, a span per authorizer.
 */
export interface AuthorizationHooks {
  webhookOptions(connection: WebhookConnection): Pick<WebhookAuthorizerOptions, 'connect' | 'injectHeaders'>;
  trace(type: string, name: string, authorizer: Authorizer): Authorizer;
}

export function buildAuthorization(config: AuthorizationConfiguration, metrics: WebhookMetrics, hooks?: AuthorizationHooks): AuthorizationInstance {
  const webhooks: WebhookAuthorizer[] = [];
  const chain: NamedAuthorizer[] = [];
  const add = (type: string, name: string, authorizer: Authorizer) => {
    const traced = hooks ? hooks.trace(type, name, authorizer) : authorizer;
    chain.push({ name, authorizer: type === 'Webhook' ? traced : counted(type, name, traced, metrics) });
  };
  add('Builtin', 'builtin', createBuiltinAuthorizer());
  try {
    for (const a of config.authorizers) {
      switch (a.type) {
        case 'AlwaysAllow':
          add(a.type, a.name, createAlwaysAllowAuthorizer());
          break;
        case 'AlwaysDeny':
          add(a.type, a.name, createAlwaysDenyAuthorizer());
          break;
        case 'Node':
          add(a.type, a.name, createNodeAuthorizer());
          break;
        case 'Webhook': {
          const w = a.webhook!;
          const connection = webhookConnection(a);
          const webhook = new WebhookAuthorizer(
            {
              name: a.name,
              timeoutMs: w.timeoutMs,
              authorizedTTLMs: w.authorizedTTLMs,
              unauthorizedTTLMs: w.unauthorizedTTLMs,
              subjectAccessReviewVersion: w.subjectAccessReviewVersion,
              failurePolicy: w.failurePolicy,
              matchConditions: w.matchConditions.map((m) => ({ expression: m.expression })),
            },
            connection,
            { metrics, ...hooks?.webhookOptions(connection) },
          );
          webhooks.push(webhook);
          // The webhook counts its own decisions.
          add('Webhook', a.name, webhook);
          break;
        }
        default:
          throw new AuthorizationConfigError(`authorizer ${JSON.stringify(a.name)}: type ${JSON.stringify(a.type)} is not supported by this server`);
      }
    }
  } catch (err) {
    void Promise.all(webhooks.map((w) => w.close()));
    throw err;
  }
  return {
    authorizer: createAuthorizerChain(chain),
    close: async () => {
      await Promise.all(webhooks.map((w) => w.close()));
    },
  };
}
