import { Registry } from 'prom-client';
import { createMetricsRegistry } from '@plat/telemetry';
import { createServerMetrics, recordRequest } from './metrics.js';

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

  it('counts each request in its own series when consecutive requests share some labels but not all (the last-series shortcut)', async () => {
    const metrics = createServerMetrics(new Registry());
    const served = { apiGroup: 'certificates.plat.io', apiVersion: 'v1beta1', resource: 'clustertrustbundles' };
    const key = 'certificates.plat.io/v1beta1/clustertrustbundles';
    const none = { apiGroup: '', apiVersion: '', resource: '' };
    const calls: [string, typeof served, string, string, string, number][] = [
      [key, served, 'GET', 'resource', '', 200],
      [key, served, 'GET', 'resource', '', 200],
      [key, served, 'GET', 'resource', '', 404],
      [key, served, 'GET', 'resource', '', 200],
      [key, served, 'LIST', 'cluster', '', 200],
      [key, served, 'GET', 'cluster', '', 200],
      [key, served, 'GET', 'resource', 'status', 200],
      ['', none, 'GET', 'resource', '', 200],
      [key, served, 'GET', 'resource', '', 200],
    ];
    for (const [resourceKey, labels, verb, scope, subresource, code] of calls) recordRequest(metrics, resourceKey, labels, verb, scope, subresource, code, 0.001);
    const text = await metrics.registry.metrics();
    const total = (verb: string, group: string, subresource: string, scope: string, code: number) => {
      const resource = group === '' ? '' : 'clustertrustbundles';
      const version = group === '' ? '' : 'v1beta1';
      const line = text.split('\n').find((l) => l.startsWith(`apiserver_request_total{verb="${verb}",group="${group}",version="${version}",resource="${resource}",subresource="${subresource}",scope="${scope}",component="apiserver",code="${code}"} `));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    };
    expect(total('GET', 'certificates.plat.io', '', 'resource', 200)).toBe(4);
    expect(total('GET', 'certificates.plat.io', '', 'resource', 404)).toBe(1);
    expect(total('LIST', 'certificates.plat.io', '', 'cluster', 200)).toBe(1);
    expect(total('GET', 'certificates.plat.io', '', 'cluster', 200)).toBe(1);
    expect(total('GET', 'certificates.plat.io', 'status', 'resource', 200)).toBe(1);
    expect(total('GET', '', '', 'resource', 200)).toBe(1);
    const count = text.split('\n').find((l) => l.startsWith('apiserver_request_duration_seconds_count{verb="GET",group="certificates.plat.io",version="v1beta1",resource="clustertrustbundles",subresource="",scope="resource",'));
    expect(count?.endsWith(' 5')).toBe(true);
  });
});
