import { Registry, collectDefaultMetrics } from 'prom-client';

/** The server's Prometheus registry, with the process metrics (CPU, memory, event loop lag). */
export function createMetricsRegistry(opts: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  return registry;
}
