import {
  RbacAuthorizer,
  WebhookAuthorizer,
  type WebhookMetrics,
  createAlwaysAllowAuthorizer,
  createAlwaysDenyAuthorizer,
  createAuthorizerChain,
  createBuiltinAuthorizer,
  createNodeAuthorizer,
  forwardRulesFor,
  type Authorizer,
  type NamedAuthorizer,
  type RbacRuleResolver,
  type WebhookAuthorizerOptions,
  type WebhookConnection,
} from '@plat/auth';
import {
  authorizationConfigurationFromFlags,
  loadAuthorizationConfiguration,
  type AuthorizationConfiguration,
  type LoadResult,
} from '@plat/config';
import type { ServerLogger } from '@plat/server';
import { supportedAuthorizerTypes, type AuthOptions } from './auth-options.js';
import { AuthorizationConfigError } from './identity-errors.js';
import { webhookConnection } from './webhook-connection.js';

/** One built authorization configuration: the server's authorizer and the webhooks to close. */
export interface AuthorizationInstance {
  authorizer: Authorizer;
  close(): Promise<void>;
}

/**
 * What egress and tracing add to the authorizers (see setupEgressTracing): the `controlplane`
 * dialer and traceparent headers for webhooks, a span per authorizer.
 */
export interface AuthorizationHooks {
  webhookOptions(connection: WebhookConnection): Pick<WebhookAuthorizerOptions, 'connect' | 'injectHeaders'>;
  trace(type: string, name: string, authorizer: Authorizer): Authorizer;
}

function loadResultOrThrow<T>(result: LoadResult<T>, source: string, logger: ServerLogger): T {
  for (const w of result.warnings) logger.info(`${source}: ${w}`, {}, 0);
  if (!result.ok) throw new AuthorizationConfigError(`${source} is invalid:\n${result.errors.map((e) => `  ${e.toString()}`).join('\n')}`);
  return result.config;
}

/**
 * The configuration in force: the --authorization-config file's `text`, or the one
 * --authorization-mode and --authorization-webhook-* stand for (the same validator either way).
 */
export function loadAuthorization(auth: AuthOptions, text: string | undefined, logger: ServerLogger): AuthorizationConfiguration {
  const options = { supportedTypes: supportedAuthorizerTypes };
  if (auth.authorizationConfigFile) {
    return loadResultOrThrow(loadAuthorizationConfiguration(text ?? '', options), `--authorization-config ${auth.authorizationConfigFile}`, logger);
  }
  return loadResultOrThrow(authorizationConfigurationFromFlags(auth.authorization, options), 'the --authorization-mode flags', logger);
}

/** Counts every authorizer's decisions in the webhook metrics' decisions counter (type and name labels). */
function counted(type: string, name: string, authorizer: Authorizer, metrics: WebhookMetrics): Authorizer {
  const count = metrics.decisionCounter(type, name);
  return {
    rulesFor: forwardRulesFor(authorizer),
    async authorize(attrs, scope) {
      const result = await authorizer.authorize(attrs, scope);
      count(result.decision);
      return result;
    },
    authorizeKnown: authorizer.authorizeKnown
      ? (attrs, scope) => {
          const result = authorizer.authorizeKnown!(attrs, scope);
          if (result) count(result.decision);
          return result;
        }
      : undefined,
  };
}

/**
 * The authorizer chain of one configuration (Kubernetes' pkg/kubeapiserver/authorizer): the
 * built-in rules first, then each configured authorizer in order (first Allow or Deny wins; no
 * opinion from all is a denial). Webhooks get their connection from their PlatConfig file
 * ({@link webhookConnection}) and the match conditions @plat/config compiled. `type: RBAC` reads
 * the server's RBAC objects through `rbacResolver` (see createServedResources); with it, as in
 * Kubernetes, only system:masters is built in and everything else is bootstrap policy.
 */
export function buildAuthorization(
  config: AuthorizationConfiguration,
  metrics: WebhookMetrics,
  hooks?: AuthorizationHooks,
  rbacResolver?: RbacRuleResolver,
): AuthorizationInstance {
  const webhooks: WebhookAuthorizer[] = [];
  const chain: NamedAuthorizer[] = [];
  const add = (type: string, name: string, authorizer: Authorizer) => {
    const traced = hooks ? hooks.trace(type, name, authorizer) : authorizer;
    chain.push({ name, authorizer: type === 'Webhook' ? traced : counted(type, name, traced, metrics) });
  };
  const rbac = config.authorizers.some((a) => a.type === 'RBAC');
  add('Builtin', 'builtin', createBuiltinAuthorizer(rbac ? { roles: [] } : {}));
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
        case 'RBAC':
          if (!rbacResolver) throw new AuthorizationConfigError(`authorizer ${JSON.stringify(a.name)}: type RBAC needs the server's RBAC objects (an RbacRuleResolver)`);
          add(a.type, a.name, new RbacAuthorizer(rbacResolver));
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
              matchConditions: w.matchConditions,
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
