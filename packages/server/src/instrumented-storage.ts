// Imported, not the global: `performance` is an accessor on Node's global object, so every read
// of the global ran V8's LoadGlobalIC and its getter, here twice a GET (perf-native.mjs
// --callers: `LoadGlobalIC` under `getResource`, into which this wrapper is inlined, 0.09-0.12 µs
// a GET; serving.ts; docs/performance.md "apiserver", sixth round).
import { performance } from 'node:perf_hooks';
import type { Storage } from '@plat/storage';
import type { ServerMetrics } from './metrics.js';

type TimedOperation = 'create' | 'get' | 'list' | 'guaranteedUpdate' | 'delete' | 'count';
const timed: TimedOperation[] = ['create', 'get', 'list', 'guaranteedUpdate', 'delete', 'count'];

/** The storage seen through latency metrics (etcd_request_duration_seconds{operation,type}). */
export function instrumentStorage(storage: Storage, metrics: ServerMetrics, type: string): Storage {
  const wrapped: Storage = Object.create(storage) as Storage;
  for (const op of timed) {
    const original = storage[op] as (a: unknown, b: unknown, c: unknown) => Promise<unknown>;
    // The label child is looked up once: prom-client validates and hashes label objects per call.
    const series = metrics.storageDuration.labels({ operation: op, type });
    // One reaction on the backend's promise instead of an async function with try/await around
    // it: 35-38 ns a call over the backend's own instead of 79-84 (promise-hops.mjs, load 12;
    // docs/performance.md, "apiserver"). A synchronous throw still reaches the caller as a
    // rejection. The operations take at most three arguments, passed as they are: no rest array,
    // spread call or bound function, and one closure less than a timer's (startTimer) per call:
    // CPU per GET B ÷ A 0.974 in-process (docs/performance.md "apiserver", fourth round).
    (wrapped as unknown as Record<string, unknown>)[op] = (a: unknown, b: unknown, c: unknown) => {
      const start = performance.now();
      let pending: Promise<unknown>;
      try {
        pending = original.call(storage, a, b, c);
      } catch (err) {
        series.observe((performance.now() - start) / 1000);
        return Promise.reject(err);
      }
      return pending.then(
        (value) => {
          series.observe((performance.now() - start) / 1000);
          return value;
        },
        (err: unknown) => {
          series.observe((performance.now() - start) / 1000);
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
