/**
 * Batch mode (k8s.io/apiserver `plugin/pkg/audit/buffered/buffered.go`): events wait in a bounded
 * buffer and go to the delegate in batches of at most maxBatchSize, at the latest maxBatchWait after
 * the first of them arrived, at most throttleQPS batches a second (burst throttleBurst). A request
 * never waits for the delegate; when the buffer is full, events are dropped and counted under
 * `apiserver_audit_error_total{plugin="buffered"}`.
 */
import type { AuditBackend } from './backend.js';
import type { AuditEvent } from './event.js';
import type { AuditMetrics } from './metrics.js';

export interface BatchConfig {
  /** Events buffered before new ones are dropped. */
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQPS: number;
  throttleBurst: number;
}

/** `--audit-webhook-batch-*` defaults (pkg/server/options/audit.go defaultWebhookBatchConfig). */
export const defaultWebhookBatchConfig: BatchConfig = {
  bufferSize: 10_000,
  maxBatchSize: 400,
  maxBatchWaitMs: 30_000,
  throttleEnable: true,
  throttleQPS: 10,
  throttleBurst: 15,
};

/** `--audit-log-batch-*` defaults (defaultLogBatchConfig): batching a file gains nothing, so one event per batch. */
export const defaultLogBatchConfig: BatchConfig = {
  bufferSize: 10_000,
  maxBatchSize: 1,
  maxBatchWaitMs: 0,
  throttleEnable: false,
  throttleQPS: 0,
  throttleBurst: 0,
};

/** Batches sent to the delegate at the same time, at most (a hanging webhook holds each one until its timeout). */
export const maxConcurrentBatches = 10;

class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Milliseconds until a token is free (0: taken now). */
  take(): number {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.qps) * 1000);
  }
}

export function createBufferedBackend(delegate: AuditBackend, config: BatchConfig, metrics: AuditMetrics): AuditBackend {
  let buffer: AuditEvent[] = [];
  const maxBatch = Math.max(1, config.maxBatchSize);
  const bucket = config.throttleEnable && config.throttleQPS > 0 ? new TokenBucket(config.throttleQPS, Math.max(1, config.throttleBurst)) : undefined;
  const inFlight = new Set<Promise<unknown>>();
  /**
   * A delegate that stores events one by one (the log) gets everything due at once, the buffer
   * itself (emptied after the call, which keeps nothing of it): with the log's batches of one
   * event, a flush was one `splice`, array and processEvents call an event (part of the shared
   * pieces' gain, docs/performance.md "audit": 0.952–0.966× of the audited GET's CPU together).
   */
  const whole = delegate.storesEventsAlone === true && bucket === undefined;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let throttleTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const send = (batch: AuditEvent[]) => {
    let answer: boolean | Promise<boolean>;
    try {
      answer = delegate.processEvents(batch);
    } catch {
      answer = false;
    }
    if (typeof answer === 'boolean') return;
    // The delegate counts its own failures; here only the slot is tracked.
    const p = answer.catch(() => false).finally(() => {
      inFlight.delete(p);
      schedule();
    });
    inFlight.add(p);
  };

  const flush = (all: boolean) => {
    immediate = undefined;
    delegate.cork?.();
    try {
      flushBatches(all);
    } finally {
      delegate.uncork?.();
    }
  };

  const flushBatches = (all: boolean) => {
    if (timer && (all || buffer.length === 0)) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (whole && buffer.length > 0) {
      // What the loop below would send: everything, or while a batch waits for its time only the full batches.
      const due = all || !timer ? buffer.length : buffer.length - (buffer.length % maxBatch);
      if (due === buffer.length) {
        send(buffer);
        // A new array rather than `buffer.length = 0`, which is a call into the runtime: about 100
        // against 35 ns a flush with its pushes (a micro-benchmark of the two, taskset -c 1); the
        // buffered backend with its turn (2 and 8 events a setImmediate, a delegate that keeps
        // nothing) 0.970 [0.829–1.047] and 0.960 [0.929–1.139] of what it took (n=21, load 5.4):
        // ~100 ns a flush. (CPU profile of filter.mjs: the line was 523 of the audit's ~9,000 ticks.)
        buffer = [];
      } else if (due > 0) {
        send(buffer.splice(0, due));
      }
    }
    while (buffer.length > 0 && (all || buffer.length >= maxBatch || !timer)) {
      if (!all && inFlight.size >= maxConcurrentBatches) return;
      if (bucket && !all) {
        const wait = bucket.take();
        if (wait > 0) {
          throttleTimer ??= setTimeout(() => {
            throttleTimer = undefined;
            flush(false);
          }, wait);
          return;
        }
      }
      send(buffer.splice(0, maxBatch));
    }
    if (buffer.length > 0 && !timer) startTimer();
  };

  const startTimer = () => {
    timer = setTimeout(() => {
      timer = undefined;
      flush(false);
    }, config.maxBatchWaitMs);
  };

  const schedule = () => {
    if (stopped || buffer.length === 0) return;
    if (buffer.length >= maxBatch || config.maxBatchWaitMs <= 0) {
      immediate ??= setImmediate(() => flush(false));
    } else if (!timer) {
      startTimer();
    }
  };

  return {
    name: 'buffered',
    // The buffer only holds the events: the delegate is what reads them.
    writesPendingTimes: delegate.writesPendingTimes,
    processEvents(events) {
      if (stopped) {
        metrics.error('buffered', events.length);
        return true;
      }
      const room = Math.max(0, config.bufferSize - buffer.length);
      if (room < events.length) metrics.error('buffered', events.length - room);
      for (let i = 0; i < Math.min(room, events.length); i++) buffer.push(events[i]!);
      schedule();
      // Kubernetes' buffered backend never fails a request.
      return true;
    },
    async shutdown() {
      stopped = true;
      if (immediate) clearImmediate(immediate);
      if (throttleTimer) clearTimeout(throttleTimer);
      flush(true);
      await Promise.all([...inFlight]);
      await delegate.shutdown();
    },
  };
}
