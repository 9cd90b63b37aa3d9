/**
 * Auditing from its flags: the Policy (loaded and validated by the caller) compiled once, the log
 * and webhook backends in their modes, the metrics on the server's registry. As kube-apiserver,
 * nothing is audited without a policy, and a policy without a backend audits nothing.
 */
import {
  createAuditBackend,
  createAuditMetrics,
  newPolicyRuleEvaluator,
  type AuditLogBackendOptions,
  type AuditWebhookBackendOptions,
  type AuditWebhookConnection,
} from '@plat/audit';
import { loadKubeConfig, resolveRestConfig } from '@plat/client';
import type { AuditPolicy } from '@plat/config';
import type { ServerAudit, ServerLogger } from '@plat/server';
import type { Registry } from 'prom-client';

export interface AuditSetupOptions {
  /** --audit-policy-file, loaded with @plat/config's loadAuditPolicy. */
  policy?: AuditPolicy;
  log?: AuditLogBackendOptions;
  /** The webhook's flags; `configFile` is --audit-webhook-config-file (kubeconfig format). */
  webhook?: Omit<AuditWebhookBackendOptions, 'connection'> & { configFile: string };
}

/** A problem with the audit flags or files that the operator fixes. */
export class AuditConfigError extends Error {
  readonly code = 'ERR_AUDIT_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'AuditConfigError';
  }
}

/**
 * The webhook's connection from its kubeconfig-format file (current context), loaded as the
 * webhook authorizer's is (webhook-connection.ts); events carry request bodies, so only https://.
 */
export function auditWebhookConnection(configFile: string): AuditWebhookConnection {
  let rest;
  try {
    rest = resolveRestConfig(loadKubeConfig({ explicitPath: configFile }), {}, 'apiserver');
  } catch (err) {
    throw new AuditConfigError(`--audit-webhook-config-file ${configFile}: ${(err as Error).message}`);
  }
  if (!/^https:\/\//.test(rest.server)) {
    throw new AuditConfigError(`--audit-webhook-config-file ${configFile}: the webhook server must be an https:// URL, got ${JSON.stringify(rest.server)}`);
  }
  return { server: rest.server, ca: rest.ca, cert: rest.cert, key: rest.key, token: rest.token, tlsServerName: rest.tlsServerName, insecureSkipTLSVerify: rest.insecureSkipTlsVerify };
}

/** The server's audit (policy, backend, metrics), or undefined when auditing is off. */
export function setupAudit(options: AuditSetupOptions, deps: { registry: Registry; logger: ServerLogger }): ServerAudit | undefined {
  const { policy, log, webhook } = options;
  if (!policy) {
    if (log || webhook) deps.logger.info('No audit policy file provided, no events will be recorded', {}, 0);
    return undefined;
  }
  const metrics = createAuditMetrics(deps.registry);
  const backend = createAuditBackend(
    { log, webhook: webhook ? { ...webhook, connection: auditWebhookConnection(webhook.configFile) } : undefined },
    { metrics, onError: (err) => deps.logger.error('Error in audit backend', { err: err.message }) },
  );
  if (!backend) {
    deps.logger.info('An audit policy file was given without --audit-log-path or --audit-webhook-config-file, no events will be recorded', {}, 0);
    return undefined;
  }
  return { evaluator: newPolicyRuleEvaluator(policy), backend, metrics };
}
