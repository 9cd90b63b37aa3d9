import type { Registry } from 'prom-client';
import type { StorageMemoryStats } from '@plat/storage';
import { createMetricsRegistry } from '@plat/telemetry';
import { FastCounter, FastGauge, FastHistogram, type CounterChild, type HistogramChild } from './fast-metrics.js';

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

interface RequestSeries {
  duration: HistogramChild;
  byCode: Map<number, CounterChild>;
}

/** Counts one finished request and observes its latency (label children looked up once per label set). */
export function recordRequest(metrics: ServerMetrics, labels: RequestLabels, code: number, seconds: number): void {
  const cache = metrics.requestSeries;
  const key = `${labels.verb}\0${labels.group}\0${labels.version}\0${labels.resource}\0${labels.subresource}\0${labels.scope}\0${labels.component}`;
  let series = cache.get(key);
  if (!series) {
    series = { duration: metrics.requestDuration.labels({ ...labels }), byCode: new Map() };
    cache.set(key, series);
  }
  let counter = series.byCode.get(code);
  if (!counter) {
    counter = metrics.requestTotal.labels({ ...labels, code: String(code) });
    series.byCode.set(code, counter);
  }
  counter.inc();
  series.duration.observe(seconds);
}

/**
 * The server's Prometheus metrics, named as kube-apiserver names them. They are fast-metrics
 * classes (no label hashing per observation) registered in a prom-client Registry.
 */
export interface ServerMetrics {
  registry: Registry;
  requestTotal: FastCounter;
  requestDuration: FastHistogram;
  inflight: FastGauge;
  longRunning: FastGauge;
  registeredWatchers: FastGauge;
  watchEvents: FastCounter;
  /**
   * Watch events refused because their resourceVersion was not newer than the last one sent on
   * their stream, by layer (`http` here, `storage` and `watch-cache` read from the store).
   */
  watchDuplicateDropped: FastCounter;
  droppedRequests: FastCounter;
  storageDuration: FastHistogram;
  /** recordRequest's label children by label set, looked up once each. */
  requestSeries: Map<string, RequestSeries>;
}

/**
 * Registers the server's metrics on `registry`. The process metrics (CPU, memory, event loop)
 * belong to whoever creates the registry: @plat/telemetry's createMetricsRegistry() adds them, and
 * so does this function when it creates the registry itself. Adding them here to a registry that
 * already has them would throw prom-client's "already been registered".
 */
export function createServerMetrics(
  registry: Registry = createMetricsRegistry(),
  opts: { storageWatchDrops?: () => Partial<Record<string, number>> } = {},
): ServerMetrics {
  // The store counts its own refused events (storage watch, watch cache): brought in at scrape.
  const counted = new Map<string, number>();
  const collectStorageDrops = (counter: FastCounter): void => {
    for (const [layer, n = 0] of Object.entries(opts.storageWatchDrops?.() ?? {})) {
      const delta = n - (counted.get(layer) ?? 0);
      if (delta > 0) counter.labels(layer).inc(delta);
      counted.set(layer, n);
    }
  };
  return {
    registry,
    requestSeries: new Map(),
    requestTotal: new FastCounter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      registry,
    }),
    requestDuration: new FastHistogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registry,
    }),
    inflight: new FastGauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registry,
    }),
    longRunning: new FastGauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'scope', 'component'],
      registry,
    }),
    registeredWatchers: new FastGauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registry,
    }),
    watchEvents: new FastCounter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'kind'],
      registry,
    }),
    watchDuplicateDropped: new FastCounter({
      name: 'apiserver_watch_events_duplicate_dropped_total',
      help: 'Number of watch events not sent because their resourceVersion was not newer than the last one sent on the same stream, by layer.',
      labelNames: ['layer'],
      registry,
      collect: collectStorageDrops,
    }),
    droppedRequests: new FastCounter({
      name: 'apiserver_dropped_requests_total',
      help: 'Number of requests dropped with \'Try again later\' response',
      labelNames: ['request_kind'],
      registry,
    }),
    storageDuration: new FastHistogram({
      name: 'etcd_request_duration_seconds',
      help: 'Storage request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registry,
    }),
  };
}

/**
 * Gauges of what the store keeps in memory and its bounds, read from `stats()` at each scrape:
 * the watch cache's window of recent events (count and bytes of stored JSON) and the read cache.
 * A part the store does not have is not exported.
 */
export function registerStorageMemoryMetrics(registry: Registry, stats: () => StorageMemoryStats): void {
  const gauge = (name: string, help: string, read: (s: StorageMemoryStats) => number | undefined) =>
    new FastGauge({
      name,
      help,
      labelNames: [],
      registry,
      collect(g) {
        const value = read(stats());
        if (value === undefined) g.reset();
        else g.labels().set(value);
      },
    });
  gauge('apiserver_watch_cache_window_events', 'Events in the watch cache window (kept for watches resuming from a resourceVersion).', (s) => s.watchCacheWindow?.events);
  gauge('apiserver_watch_cache_window_events_limit', 'Most events the watch cache window keeps.', (s) => s.watchCacheWindow?.maxEvents);
  gauge('apiserver_watch_cache_window_bytes', "Bytes of the watch cache window's objects (their stored JSON).", (s) => s.watchCacheWindow?.bytes);
  gauge('apiserver_watch_cache_window_bytes_limit', 'Most bytes the watch cache window keeps (--watch-cache-window-bytes).', (s) => s.watchCacheWindow?.maxBytes);
  gauge('apiserver_storage_read_cache_objects', 'Decoded objects the storage keeps for repeated gets.', (s) => s.readCache?.objects);
  gauge('apiserver_storage_read_cache_bytes', "Bytes of the read cache's objects (their stored JSON).", (s) => s.readCache?.bytes);
  gauge('apiserver_storage_read_cache_bytes_limit', 'Most bytes the read cache keeps.', (s) => s.readCache?.maxBytes);
}
