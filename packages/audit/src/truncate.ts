/**
 * Truncation (k8s.io/apiserver `plugin/pkg/audit/truncate/truncate.go`): an event larger than
 * maxEventSize loses its request and response objects and is annotated
 * `audit.k8s.io/truncated: "true"`; one still too large is dropped and counted. A batch larger than
 * maxBatchSize is split into batches that fit.
 */
import type { AuditBackend } from './backend.js';
import { encodeEventLine, type AuditEvent } from './event.js';
import type { AuditMetrics } from './metrics.js';

export interface TruncateConfig {
  maxEventSize: number;
  maxBatchSize: number;
}

/** `--audit-*-truncate-max-event-size` 100 KiB and `-max-batch-size` 10 MiB. */
export const defaultTruncateConfig: TruncateConfig = { maxEventSize: 100 * 1024, maxBatchSize: 10 * 1024 * 1024 };

export const truncatedAnnotationKey = 'audit.k8s.io/truncated';

function sizeOf(ev: AuditEvent): number {
  return Buffer.byteLength(encodeEventLine(ev)) - 1;
}

/** The event as it may go out, with its size; undefined when even the truncated event is too large. */
export function truncateEvent(ev: AuditEvent, maxEventSize: number): { event: AuditEvent; size: number } | undefined {
  const size = sizeOf(ev);
  if (size <= maxEventSize) return { event: ev, size };
  const { requestObject: _req, responseObject: _res, ...rest } = ev;
  const event: AuditEvent = { ...rest, annotations: { ...ev.annotations, [truncatedAnnotationKey]: 'true' } };
  const truncatedSize = sizeOf(event);
  return truncatedSize <= maxEventSize ? { event, size: truncatedSize } : undefined;
}

export function createTruncateBackend(delegate: AuditBackend, config: TruncateConfig, metrics: AuditMetrics): AuditBackend {
  return {
    name: 'truncate',
    processEvents(events) {
      const batches: AuditEvent[][] = [];
      let batch: AuditEvent[] = [];
      let batchSize = 0;
      let ok = true;
      for (const ev of events) {
        const t = truncateEvent(ev, config.maxEventSize);
        if (!t) {
          metrics.error('truncate', 1);
          ok = false;
          continue;
        }
        if (batch.length > 0 && batchSize + t.size > config.maxBatchSize) {
          batches.push(batch);
          batch = [];
          batchSize = 0;
        }
        batch.push(t.event);
        batchSize += t.size;
      }
      if (batch.length > 0) batches.push(batch);
      const answers = batches.map((b) => delegate.processEvents(b));
      if (answers.every((a) => typeof a === 'boolean')) return ok && answers.every(Boolean);
      return Promise.all(answers).then((all) => ok && all.every(Boolean));
    },
    shutdown: () => delegate.shutdown(),
    cork: () => delegate.cork?.(),
    uncork: () => delegate.uncork?.(),
  };
}
