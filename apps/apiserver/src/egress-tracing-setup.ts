/**
 * What `--egress-selector-config-file` and `--tracing-config-file` add to the server: the egress
 * selector (webhook authorizers on `controlplane`, the etcd client on `etcd`), the tracer, and the
 * metrics registry they and the server share. OIDC discovery of JWT authenticators never uses
 * egress (the spec says so), so nothing here is handed to the authentication setup.
 */
import type { Authorizer, WebhookAuthorizerOptions, WebhookConnection } from '@plat/auth';
import type { EgressSelectorConfiguration, TracingConfiguration } from '@plat/config';
import { traceAuthorizer } from '@plat/server';
import type { BackendOptions } from '@plat/storage';
import { createMetricsRegistry, type Tracing } from '@plat/telemetry';
import type { Registry } from 'prom-client';
import { ConfigFileError } from './config-file.js';
import { loadEgressConfigFile, setupEgress, startEtcdEgress, webhookAuthorizerOptions, type Egress, type EtcdEgress } from './egress-setup.js';
import type { Logger } from './logger.js';
import { loadTracingConfigFile, setupTracing } from './tracing-setup.js';

export interface EgressTracingFlags {
  /** --egress-selector-config-file */
  egressSelectorConfigFile?: string;
  /** --tracing-config-file */
  tracingConfigFile?: string;
}

/** The hooks the authorization setup applies to the authorizers it builds. */
export interface AuthorizerHooks {
  /** Options for a WebhookAuthorizer: `connect` through the controlplane dialer, `injectHeaders` for traceparent. */
  webhookOptions(connection: WebhookConnection): Pick<WebhookAuthorizerOptions, 'connect' | 'injectHeaders'>;
  /** Wraps one authorizer of the chain in an `authorizer <type>/<name>` span (unchanged with tracing off). */
  trace(type: string, name: string, authorizer: Authorizer): Authorizer;
}

export interface EgressTracing {
  readonly tracing: Tracing;
  readonly egress: Egress;
  /** The registry of /metrics: the server's metrics, egress dial counters. */
  readonly metricsRegistry: Registry;
  readonly authorizerHooks: AuthorizerHooks;
  /** The storage options with the etcd client routed through the `etcd` selection when it is proxied. */
  storageBackend(options: BackendOptions): Promise<BackendOptions>;
  /** Why etcd could not be reached through egress, if a dial failed. */
  storageHint(): string;
  /** Flushes spans, stops the etcd forwarders and the egress dialers. */
  close(): Promise<void>;
}

/**
 * Loads both files (an invalid one fails the start with its field errors, through `fail`) and
 * builds egress and tracing.
 */
export async function setupEgressTracing(
  flags: EgressTracingFlags,
  deps: { logger: Logger; version: string; cwd: string; fail: (message: string) => Error },
): Promise<EgressTracing> {
  const { logger, cwd } = deps;
  let egressConfig: EgressSelectorConfiguration | undefined;
  let tracingConfig: TracingConfiguration | undefined;
  try {
    if (flags.egressSelectorConfigFile) egressConfig = await loadEgressConfigFile(flags.egressSelectorConfigFile, cwd, logger);
    if (flags.tracingConfigFile) tracingConfig = await loadTracingConfigFile(flags.tracingConfigFile, cwd, logger);
  } catch (err) {
    if (err instanceof ConfigFileError) throw deps.fail(err.message);
    throw err;
  }
  // One registry (process metrics included) for the server, egress and the authorizers.
  const metricsRegistry = createMetricsRegistry();
  let egress: Egress;
  try {
    egress = await setupEgress(egressConfig, { cwd, logger, registry: metricsRegistry });
  } catch (err) {
    throw deps.fail(`--egress-selector-config-file: ${(err as Error).message}`);
  }
  const tracing = await setupTracing(tracingConfig, { logger, version: deps.version });
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
        throw deps.fail(`--egress-selector-config-file: etcd: ${(err as Error).message}`);
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
