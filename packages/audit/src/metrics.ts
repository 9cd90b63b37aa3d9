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

function counter<T extends string>(registry: Registry, name: string, help: string, labelNames: T[] = [], collect?: () => void): Counter<T> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<T>;
  return new Counter<T>({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) });
}

/**
 * The per-request counts (events, levels) are kept as plain numbers and added to their counters
 * when the registry is read: prom-client's inc() with a label hashes the label set on every call,
 * which was about a tenth of what auditing a GET at Metadata cost in the filter. One set of counts
 * per registry, so that two createAuditMetrics on a registry count into the same series.
 */
interface PendingCounts {
  events: number;
  levels: Record<AuditLevel, number>;
}
const pendingByRegistry = new WeakMap<Registry, PendingCounts>();

export function createAuditMetrics(registry: Registry): AuditMetrics {
  let pending = pendingByRegistry.get(registry);
  if (!pending) {
    pending = { events: 0, levels: { None: 0, Metadata: 0, Request: 0, RequestResponse: 0 } };
    pendingByRegistry.set(registry, pending);
  }
  const counts = pending;
  const events = counter(registry, 'apiserver_audit_event_total', 'Counter of audit events generated and sent to the audit backend.', [], () => {
    if (counts.events > 0) events.inc(counts.events);
    counts.events = 0;
  });
  const errors = counter(
    registry,
    'apiserver_audit_error_total',
    'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    ['plugin'],
  );
  const levels = counter(registry, 'apiserver_audit_level_total', 'Counter of policy levels for audit events (1 per request).', ['level'], () => {
    for (const level of Object.keys(counts.levels) as AuditLevel[]) {
      if (counts.levels[level] > 0) levels.inc({ level }, counts.levels[level]);
      counts.levels[level] = 0;
    }
  });
  const rejected = counter(
    registry,
    'apiserver_audit_requests_rejected_total',
    'Counter of apiserver requests rejected due to an error in audit logging backend.',
  );
  return {
    event: () => {
      counts.events++;
    },
    error: (plugin, count) => errors.inc({ plugin }, count),
    level: (level) => {
      // By name rather than counts.levels[level]++: a keyed load and store for each request.
      const levels = counts.levels;
      if (level === 'Metadata') levels.Metadata++;
      else if (level === 'None') levels.None++;
      else if (level === 'RequestResponse') levels.RequestResponse++;
      else levels.Request++;
    },
    requestRejected: () => rejected.inc(),
  };
}

/** Metrics that go nowhere, for backends built without a registry. */
export const noAuditMetrics: AuditMetrics = { event() {}, error() {}, level() {}, requestRejected() {} };
