/**
 * The audit metrics under Kubernetes' names (k8s.io/apiserver `pkg/audit/metrics.go`), registered
 * once per registry.
 */
import { Counter, type Registry } from 'prom-client';
import type { AuditLevel } from '@plat/config';

export interface AuditMetrics {
  /** An event was handed to the backend. */
  event(): void;
  /** `count` events failed in `plugin` (dropped, not written, not sent). */
  error(plugin: string, count: number): void;
  /** One request's policy level. */
  level(level: AuditLevel): void;
  /** A request was refused because its event could not be stored (blocking-strict). */
  requestRejected(): void;
}

function counter<T extends string>(registry: Registry, name: string, help: string, labelNames: T[] = []): Counter<T> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<T>;
  return new Counter<T>({ name, help, labelNames, registers: [registry] });
}

export function createAuditMetrics(registry: Registry): AuditMetrics {
  const events = counter(registry, 'apiserver_audit_event_total', 'Counter of audit events generated and sent to the audit backend.');
  const errors = counter(
    registry,
    'apiserver_audit_error_total',
    'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    ['plugin'],
  );
  const levels = counter(registry, 'apiserver_audit_level_total', 'Counter of policy levels for audit events (1 per request).', ['level']);
  const rejected = counter(
    registry,
    'apiserver_audit_requests_rejected_total',
    'Counter of apiserver requests rejected due to an error in audit logging backend.',
  );
  return {
    event: () => events.inc(),
    error: (plugin, count) => errors.inc({ plugin }, count),
    level: (level) => levels.inc({ level }),
    requestRejected: () => rejected.inc(),
  };
}

/** Metrics that go nowhere, for backends built without a registry. */
export const noAuditMetrics: AuditMetrics = { event() {}, error() {}, level() {}, requestRejected() {} };
