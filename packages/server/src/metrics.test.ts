import { Registry } from 'prom-client';
import { createMetricsRegistry } from '@plat/telemetry';
import { createServerMetrics } from './metrics.js';

const occurrences = (text: string, line: string) => text.split('\n').filter((l) => l === line).length;

describe('createServerMetrics', () => {
  it("registers on @plat/telemetry's createMetricsRegistry() without a duplicate process metric", async () => {
    // Regression: it used to add the process metrics again and throw
    // "A metric with the name process_cpu_user_seconds_total has already been registered".
    const registry = createMetricsRegistry();
    const metrics = createServerMetrics(registry);
    expect(metrics.registry).toBe(registry);
    metrics.requestTotal.labels({ verb: 'GET', group: '', version: 'v1', resource: 'x', subresource: '', scope: 'cluster', component: 'apiserver', code: '200' }).inc();
    const text = await registry.metrics();
    expect(occurrences(text, '# TYPE process_cpu_user_seconds_total counter')).toBe(1);
    expect(text).toContain('apiserver_request_total{verb="GET"');
  });

  it("exports the store's refused watch events beside the HTTP layer's on one counter, by layer", async () => {
    const drops: Record<string, number> = { storage: 2 };
    const metrics = createServerMetrics(new Registry(), { storageWatchDrops: () => drops });
    metrics.watchDuplicateDropped.labels('http').inc();
    let text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE apiserver_watch_events_duplicate_dropped_total counter');
    expect(text).toContain('apiserver_watch_events_duplicate_dropped_total{layer="storage"} 2');
    expect(text).toContain('apiserver_watch_events_duplicate_dropped_total{layer="http"} 1');
    drops['storage'] = 5;
    drops['watch-cache'] = 1;
    text = await metrics.registry.metrics();
    expect(text).toContain('apiserver_watch_events_duplicate_dropped_total{layer="storage"} 5');
    expect(text).toContain('apiserver_watch_events_duplicate_dropped_total{layer="watch-cache"} 1');
  });

  it('creates a registry with the process metrics when given none', async () => {
    const text = await createServerMetrics().registry.metrics();
    expect(occurrences(text, '# TYPE process_cpu_user_seconds_total counter')).toBe(1);
    expect(text).toContain('# TYPE apiserver_request_total counter');
  });

  it('leaves the process metrics to the owner of a registry it is given', async () => {
    const text = await createServerMetrics(new Registry()).registry.metrics();
    expect(text).not.toContain('process_cpu_user_seconds_total');
    expect(text).toContain('# TYPE apiserver_request_total counter');
  });
});
