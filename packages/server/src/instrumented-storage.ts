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
    // One reaction on the backend's promise instead of an async function with try/await around
    // it: 35-38 ns a call over the backend's own instead of 79-84 (promise-hops.mjs, load 12;
    // docs/performance.md, "apiserver"). A synchronous throw still reaches the caller as a
    // rejection.
    (wrapped as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => {
      const end = series.startTimer();
      let pending: Promise<unknown>;
      try {
        pending = original(...args);
      } catch (err) {
        end();
        return Promise.reject(err);
      }
      return pending.then(
        (value) => {
          end();
          return value;
        },
        (err: unknown) => {
          end();
          throw err;
        },
      );
    };
  }
  for (const op of ['watch', 'compact', 'currentRevision', 'ready', 'close'] as const) {
    (wrapped as unknown as Record<string, unknown>)[op] = (storage[op] as (...a: unknown[]) => unknown).bind(storage);
  }
  return wrapped;
}
