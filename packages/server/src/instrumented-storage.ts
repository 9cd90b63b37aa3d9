import type { Storage } from '@plat/storage';
import type { ServerMetrics } from './metrics.js';

type TimedOperation = 'create' | 'get' | 'list' | 'guaranteedUpdate' | 'delete' | 'count';
const timed: TimedOperation[] = ['create', 'get', 'list', 'guaranteedUpdate', 'delete', 'count'];

/** The storage seen through latency metrics (etcd_request_duration_seconds{operation,type}). */
export function instrumentStorage(storage: Storage, metrics: ServerMetrics, type: string): Storage {
  const wrapped: Storage = Object.create(storage) as Storage;
  for (const op of timed) {
    const original = storage[op].bind(storage) as (...args: unknown[]) => Promise<unknown>;
    // The label child is looked up once: prom-client validates and hashes label objects per call.
    const series = metrics.storageDuration.labels({ operation: op, type });
    (wrapped as unknown as Record<string, unknown>)[op] = async (...args: unknown[]) => {
      const end = series.startTimer();
      try {
        return await original(...args);
      } finally {
        end();
      }
    };
  }
  for (const op of ['watch', 'compact', 'currentRevision', 'ready', 'close'] as const) {
    (wrapped as unknown as Record<string, unknown>)[op] = (storage[op] as (...a: unknown[]) => unknown).bind(storage);
  }
  return wrapped;
}
