import type { Registry } from 'prom-client';
import type { WebhookAuthorizerOptions, WebhookConnection } from '@plat/auth';
import type { EgressSelectorConfiguration } from '@plat/config';
import { createEgressConnector, EgressSelector, readEgressTlsMaterial } from '@plat/egress';
import { traceHeadersInjector, type ServerLogger } from '@plat/server';
import type { Tracing } from '@plat/telemetry';

/** The server's egress: one dialer per selection; without a file every selection dials directly. */
export interface Egress {
  readonly selector: EgressSelector;
  /** Whether an EgressSelectorConfiguration was given. */
  readonly configured: boolean;
  /** Whether the named selection goes through a proxy (not Direct). */
  proxied(selection: 'controlplane' | 'etcd' | 'cluster'): boolean;
  close(): void;
}

/**
 * The egress selector of an EgressSelectorConfiguration (its TLS files read relative to `cwd`),
 * with the proxied selections logged at -v=1.
 */
export async function setupEgress(
  config: EgressSelectorConfiguration | undefined,
  deps: { cwd: string; logger: ServerLogger; registry?: Registry },
): Promise<Egress> {
  const tls = config ? await readEgressTlsMaterial(config, deps.cwd) : undefined;
  const selector = new EgressSelector(config, {
    tls,
    registry: deps.registry,
    onWarning: (message) => deps.logger.info(`Warning: ${message}`, {}, 0),
  });
  const protocols = new Map((config?.egressSelections ?? []).map((s) => [s.name, s.connection.proxyProtocol]));
  for (const [name, protocol] of protocols) deps.logger.info('Egress selection', { name, proxyProtocol: protocol, via: selector.dialer(name).via }, 1);
  return {
    selector,
    configured: config !== undefined,
    proxied: (selection) => (protocols.get(selection) ?? 'Direct') !== 'Direct',
    close: () => selector.close(),
  };
}

/**
 * The options a WebhookAuthorizer of the AuthorizationConfiguration gets: its
 * connections go through the `controlplane` egress dialer (with the webhook's own TLS settings
 * applied to the handshake that runs through the tunnel), and each review carries the
 * `traceparent` of the request being authorized. OIDC discovery (JWT authenticators) never gets
 * this: the spec says it does not use egress.
 */
export function webhookAuthorizerOptions(
  deps: { egress?: Egress; tracing?: Tracing },
  connection: WebhookConnection,
): Pick<WebhookAuthorizerOptions, 'connect' | 'injectHeaders'> {
  const out: Pick<WebhookAuthorizerOptions, 'connect' | 'injectHeaders'> = {};
  if (deps.egress?.configured) {
    out.connect = createEgressConnector(
      deps.egress.selector.dialer('controlplane'),
      {
        ca: connection.ca,
        cert: connection.cert,
        key: connection.key,
        servername: connection.tlsServerName,
        rejectUnauthorized: !connection.insecureSkipTLSVerify,
      },
      10_000,
    );
  }
  if (deps.tracing?.enabled) out.injectHeaders = traceHeadersInjector(deps.tracing);
  return out;
}
