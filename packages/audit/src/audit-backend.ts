/**
 * The backends the flags ask for, wrapped as kube-apiserver wraps them
 * (k8s.io/apiserver `pkg/server/options/audit.go` ApplyTo): truncate when enabled, then batch mode's
 * buffer; `blocking` ignores the backend's failures, `blocking-strict` lets them fail the request.
 */
import { unionBackend, type AuditBackend } from './backend.js';
import { createBufferedBackend, type BatchConfig } from './buffered-backend.js';
import { createLogBackend, type AuditLogFormat } from './log-backend.js';
import type { AuditMetrics } from './metrics.js';
import { createTruncateBackend, type TruncateConfig } from './truncate.js';
import { createWebhookBackend, type AuditWebhookConnection } from './webhook-backend.js';

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';
export const auditModes: readonly AuditMode[] = ['batch', 'blocking', 'blocking-strict'];

interface ModeOptions {
  mode: AuditMode;
  batch: BatchConfig;
  /** Set when `--audit-*-truncate-enabled`. */
  truncate?: TruncateConfig;
}

export interface AuditLogBackendOptions extends ModeOptions {
  path: string;
  format: AuditLogFormat;
  maxAgeDays: number;
  maxBackups: number;
  maxSizeMB: number;
  /** --audit-log-compress */
  compress?: boolean;
}

export interface AuditWebhookBackendOptions extends ModeOptions {
  connection: AuditWebhookConnection;
  initialBackoffMs: number;
}

export interface AuditBackendOptions {
  log?: AuditLogBackendOptions;
  webhook?: AuditWebhookBackendOptions;
}

function ignoreErrors(backend: AuditBackend): AuditBackend {
  return {
    name: backend.name,
    processEvents(events) {
      const answer = backend.processEvents(events);
      return typeof answer === 'boolean' ? true : answer.then(() => true);
    },
    shutdown: () => backend.shutdown(),
  };
}

function wrap(backend: AuditBackend, options: ModeOptions, metrics: AuditMetrics): AuditBackend {
  const truncated = options.truncate ? createTruncateBackend(backend, options.truncate, metrics) : backend;
  switch (options.mode) {
    case 'batch':
      return createBufferedBackend(truncated, options.batch, metrics);
    case 'blocking':
      return ignoreErrors(truncated);
    case 'blocking-strict':
      return truncated;
  }
}

/** The configured backends as one; undefined when neither a log path nor a webhook is set. */
export function createAuditBackend(options: AuditBackendOptions, deps: { metrics: AuditMetrics; onError?: (err: Error) => void }): AuditBackend | undefined {
  const backends: AuditBackend[] = [];
  if (options.log) {
    const { log } = options;
    // In batch mode the file is written in the background, as kube-apiserver's buffered backend
    // writes from its own goroutine: a slow disk never holds requests.
    const backend = createLogBackend({
      path: log.path,
      format: log.format,
      maxAgeDays: log.maxAgeDays,
      maxBackups: log.maxBackups,
      maxSizeMB: log.maxSizeMB,
      compress: log.compress,
      background: log.mode === 'batch',
      ...deps,
    });
    backends.push(wrap(backend, log, deps.metrics));
  }
  if (options.webhook) {
    const { webhook } = options;
    const backend = createWebhookBackend({ connection: webhook.connection, initialBackoffMs: webhook.initialBackoffMs, ...deps });
    backends.push(wrap(backend, webhook, deps.metrics));
  }
  return backends.length === 0 ? undefined : unionBackend(backends);
}
