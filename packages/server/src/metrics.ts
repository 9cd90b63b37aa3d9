import { Counter, Gauge, type Registry } from 'prom-client';
import type { StorageMemoryStats } from '@plat/storage';
import { createMetricsRegistry } from '@plat/telemetry';
import { FastCounter, FastGauge, FastHistogram, type CounterChild, type HistogramChild } from './fast-metrics.js';

interface RequestSeries {
  /** verb, group, version, resource, subresource, scope, component. */
  labels: string[];
  duration: HistogramChild;
  byCode: Map<number, CounterChild>;
}

/**
 * Counts one finished request and observes its latency. The label children are looked up by
 * `resourceKey` (`group/version/resource` of a served resource, whose labels `served` holds;
 * '' for anything else, labelled '' too), then the verb, then the scope (and subresource): a
 * string the caller already hashed, then constants. One key of all seven labels had cost a
 * string of thirteen parts and a labels object each request: most of the 683 bytes the request
 * accounting's `finish` allocated per GET (inprocess.mjs --profile --heap; docs/performance.md
 * "apiserver").
 */
export function recordRequest(
  metrics: ServerMetrics,
  resourceKey: string,
  served: { apiGroup: string; apiVersion: string; resource: string },
  verb: string,
  scope: string,
  subresource: string,
  code: number,
  seconds: number,
): void {
  // The series of the request before, compared label by label: consecutive requests mostly share
  // theirs (a client polling one object), and the five comparisons (constants and the request
  // info's memoized strings, mostly the same objects) spare the four Map lookups below
  // (`FindOrderedHashMapEntry` under `recordRequest`, 0.04 µs with its own 0.04 of a GET in
  // perf-native.mjs --callers, load 2.4; docs/performance.md "apiserver", seventh round).
  const last = metrics.lastRequestSeries;
  if (last.counter !== undefined && last.code === code && last.resourceKey === resourceKey && last.verb === verb && last.scope === scope && last.subresource === subresource) {
    last.counter.inc();
    last.duration!.observe(seconds);
    return;
  }
  let byVerb = metrics.requestSeries.get(resourceKey);
  if (!byVerb) metrics.requestSeries.set(resourceKey, (byVerb = new Map()));
  let byScope = byVerb.get(verb);
  if (!byScope) byVerb.set(verb, (byScope = new Map()));
  const scopeKey = subresource === '' ? scope : `${scope}/${subresource}`;
  let series = byScope.get(scopeKey);
  if (!series) {
    const labels = resourceKey === '' ? ['', '', ''] : [served.apiGroup, served.apiVersion, served.resource];
    series = { labels: [verb, ...labels, subresource, scope, 'apiserver'], duration: metrics.requestDuration.labels(verb, ...labels, subresource, scope, 'apiserver'), byCode: new Map() };
    byScope.set(scopeKey, series);
  }
  let counter = series.byCode.get(code);
  if (!counter) {
    counter = metrics.requestTotal.labels(...series.labels, String(code));
    series.byCode.set(code, counter);
  }
  // Updated in place: a workload that alternates series makes no garbage here.
  last.resourceKey = resourceKey;
  last.verb = verb;
  last.scope = scope;
  last.subresource = subresource;
  last.code = code;
  last.counter = counter;
  last.duration = series.duration;
  counter.inc();
  series.duration.observe(seconds);
}

/**
 * The server's Prometheus metrics, named as kube-apiserver names them. The four that every request
 * touches are fast-metrics classes, whose label children hold their numbers: with prom-client's
 * (which validate and hash the label set on each call: 2.9 µs per request for these four, 0.15 µs
 * with fast-metrics) the server took 1.10× [0.93–1.20] the CPU per GET (docs/performance.md,
 * "metrics").
 * The others, touched per watch or per refused request, are prom-client's own.
 */
export interface ServerMetrics {
  registry: Registry;
  requestTotal: FastCounter;
  requestDuration: FastHistogram;
  inflight: FastGauge;
  longRunning: Gauge<'verb' | 'group' | 'version' | 'resource' | 'scope' | 'component'>;
  registeredWatchers: Gauge<'group' | 'version' | 'kind'>;
  watchEvents: Counter<'group' | 'version' | 'kind'>;
  /**
   * Watch events refused because their resourceVersion was not newer than the last one sent on
   * their stream, by layer (`http` here, `storage` and `watch-cache` read from the store).
   */
  watchDuplicateDropped: FastCounter;
  droppedRequests: Counter<'request_kind'>;
  storageDuration: FastHistogram;
  /** recordRequest's label children by served resource, verb and scope, looked up once each. */
  requestSeries: Map<string, Map<string, Map<string, RequestSeries>>>;
  /** The series recordRequest counted last, with its labels as passed (not the scope key). */
  lastRequestSeries: LastRequestSeries;
}

interface LastRequestSeries {
  resourceKey: string;
  verb: string;
  scope: string;
  subresource: string;
  code: number;
  counter: CounterChild | undefined;
  duration: HistogramChild | undefined;
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
    lastRequestSeries: { resourceKey: '', verb: '', scope: '', subresource: '', code: 0, counter: undefined, duration: undefined },
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
    longRunning: new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'scope', 'component'],
      registers: [registry],
    }),
    registeredWatchers: new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registers: [registry],
    }),
    watchEvents: new Counter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'kind'],
      registers: [registry],
    }),
    watchDuplicateDropped: new FastCounter({
      name: 'apiserver_watch_events_duplicate_dropped_total',
      help: 'Number of watch events not sent because their resourceVersion was not newer than the last one sent on the same stream, by layer.',
      labelNames: ['layer'],
      registry,
      collect: collectStorageDrops,
    }),
    droppedRequests: new Counter({
      name: 'apiserver_dropped_requests_total',
      help: 'Number of requests dropped with \'Try again later\' response',
      labelNames: ['request_kind'],
      registers: [registry],
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
  // The parts a store has do not change while it runs: a gauge is registered for each one it has.
  const gauge = (name: string, help: string, read: (s: StorageMemoryStats) => number | undefined) => {
    if (read(stats()) === undefined) return;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(stats()) ?? 0);
      },
    });
  };
  gauge('apiserver_watch_cache_window_events', 'Events in the watch cache window (kept for watches resuming from a resourceVersion).', (s) => s.watchCacheWindow?.events);
  gauge('apiserver_watch_cache_window_events_limit', 'Most events the watch cache window keeps.', (s) => s.watchCacheWindow?.maxEvents);
  gauge('apiserver_watch_cache_window_bytes', "Bytes of the watch cache window's objects (their stored JSON).", (s) => s.watchCacheWindow?.bytes);
  gauge('apiserver_watch_cache_window_bytes_limit', 'Most bytes the watch cache window keeps (--watch-cache-window-bytes).', (s) => s.watchCacheWindow?.maxBytes);
  gauge('apiserver_storage_read_cache_objects', 'Decoded objects the storage keeps for repeated gets.', (s) => s.readCache?.objects);
  gauge('apiserver_storage_read_cache_bytes', "Bytes of the read cache's objects (their stored JSON).", (s) => s.readCache?.bytes);
  gauge('apiserver_storage_read_cache_bytes_limit', 'Most bytes the read cache keeps.', (s) => s.readCache?.maxBytes);
}
