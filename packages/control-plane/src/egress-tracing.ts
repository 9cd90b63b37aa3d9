/**
 * What an EgressSelectorConfiguration and a TracingConfiguration add to the server: the egress
 * selector (webhook authorizers on `controlplane`, the etcd client on `etcd`), the tracer, and the
 * metrics registry they and the server share. OIDC discovery of JWT authenticators never uses
 * egress (the spec says so), so nothing here is handed to the authentication setup.
 */
import type { Registry } from 'prom-client';
import type { EgressSelectorConfiguration, TracingConfiguration } from '@plat/config';
import { traceAuthorizer, type ServerLogger } from '@plat/server';
import type { BackendOptions } from '@plat/storage';
import { createMetricsRegistry, type Tracing } from '@plat/telemetry';
import type { AuthorizationHooks } from './authorization.js';
import { setupEgress, webhookAuthorizerOptions, type Egress } from './egress.js';
import { startEtcdEgress, type EtcdEgress } from './etcd-egress.js';
import { setupTracing } from './tracing.js';

/** Egress or tracing could not be set up (a TLS file of the egress configuration, the etcd forwarders). */
export class EgressSetupError extends Error {
  readonly code = 'ERR_EGRESS_SETUP';

  constructor(message: string) {
    super(message);
    this.name = 'EgressSetupError';
  }
}

export interface EgressTracing {
  readonly tracing: Tracing;
  readonly egress: Egress;
  /** The registry of /metrics: the server's metrics, egress dial counters. */
  readonly metricsRegistry: Registry;
  /** For the authorization setup: webhooks dial through `controlplane` and send traceparent; a span per authorizer. */
  readonly authorizerHooks: AuthorizationHooks;
  /** The storage options with the etcd client routed through the `etcd` selection when it is proxied. */
  storageBackend(options: BackendOptions): Promise<BackendOptions>;
  /** Why etcd could not be reached through egress, if a dial failed (` (reason)`, or empty). */
  storageHint(): string;
  /** Flushes spans, stops the etcd forwarders and the egress dialers. */
  close(): Promise<void>;
}

/**
 * Builds egress and tracing from their (validated) configurations; relative TLS paths of the
 * egress configuration resolve against `cwd`. Failures throw EgressSetupError, naming the flag.
 */
export async function setupEgressTracing(
  configs: { egress?: EgressSelectorConfiguration; tracing?: TracingConfiguration },
  deps: { logger: ServerLogger; version: string; cwd: string },
): Promise<EgressTracing> {
  const { logger, cwd } = deps;
  // One registry (process metrics included) for the server, egress and the authorizers.
  const metricsRegistry = createMetricsRegistry();
  let egress: Egress;
  try {
    egress = await setupEgress(configs.egress, { cwd, logger, registry: metricsRegistry });
  } catch (err) {
    throw new EgressSetupError(`--egress-selector-config-file: ${(err as Error).message}`);
  }
  const tracing = await setupTracing(configs.tracing, { logger, version: deps.version });
  let etcd: EtcdEgress | undefined;
  return {
    tracing,
    egress,
    metricsRegistry,
    authorizerHooks: {
      webhookOptions: (connection) => webhookAuthorizerOptions({ egress, tracing }, connection),
      trace: (type, name, authorizer) => traceAuthorizer(tracing, type, name, authorizer),
    },
    async storageBackend(options) {
      if (options.backend !== 'etcd3' || !egress.proxied('etcd')) return options;
      try {
        etcd = await startEtcdEgress(egress.selector.dialer('etcd'), options.servers, logger);
      } catch (err) {
        throw new EgressSetupError(`--egress-selector-config-file: etcd: ${(err as Error).message}`);
      }
      logger.info('etcd client dials through egress', { via: egress.selector.dialer('etcd').via }, 0);
      return { ...options, dial: etcd.clientOptions };
    },
    storageHint() {
      const err = etcd?.lastError();
      return err ? ` (${err.message})` : '';
    },
    async close() {
      await tracing.shutdown();
      await etcd?.close();
      egress.close();
    },
  };
}
