/**
 * What receives events (kube's audit.Backend): the log and webhook backends, and the wrappers
 * around them (buffered, truncate, union). processEvents answers synchronously whether the events
 * were stored; only `blocking-strict` lets that answer fail a request.
 */
import type { AuditEvent } from './event.js';

export interface AuditBackend {
  /** The plugin name in `apiserver_audit_error_total{plugin}`: log, webhook, buffered, truncate. */
  readonly name: string;
  /**
   * Takes events that are never changed afterwards; false when they could not be stored. A
   * backend that must wait (a webhook in blocking mode) answers with a promise.
   */
  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean>;
  /** Sends or writes what is still buffered, then releases files and connections. */
  shutdown(): Promise<void>;
  /**
   * Optional: the batches handed over until uncork() may be stored together (the log backend
   * writes them with one write). Batch mode corks around each flush.
   */
  cork?(): void;
  uncork?(): void;
  /**
   * Optional: processEvents stores each event on its own, answers synchronously and keeps nothing
   * of the array, so how events are grouped into batches makes no difference (the log backend).
   * Batch mode then hands it everything due in one call.
   */
  readonly storesEventsAlone?: boolean;
  /**
   * Optional: processEvents may be handed events whose timestamp strings are not made yet
   * (EventRecord's pending times) and makes them (makeTimestamps) before it reads the event as an
   * object; the log backend in batch mode writes the times from their microseconds instead. Other
   * backends get the strings made.
   */
  readonly writesPendingTimes?: boolean;
}

/** Every event to every backend; stored only when every backend stored it. */
export function unionBackend(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0]!;
  return {
    name: 'union',
    processEvents(events) {
      const answers = backends.map((b) => b.processEvents(events));
      if (answers.every((a) => typeof a === 'boolean')) return answers.every(Boolean);
      return Promise.all(answers).then((all) => all.every(Boolean));
    },
    async shutdown() {
      await Promise.all(backends.map((b) => b.shutdown()));
    },
  };
}
