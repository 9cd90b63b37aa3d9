import { request } from 'undici';
import { MemoryStorage, WatchCache } from '@plat/storage';
import { bundle, ctbPath, startCluster, type TestCluster } from '../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ storage: await WatchCache.open(new MemoryStorage(), { capacityBytes: 300_000 }) });
});
afterAll(async () => {
  await c.close();
});

function gauge(metrics: string, name: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('memory of repeated updates of a large object', () => {
  it('keeps the watch cache window within its byte bound, shows it in /metrics, and answers 410 past it', async () => {
    const big = bundle('big', c.anchorPem, undefined, { metadata: { annotations: { padding: 'p'.repeat(100_000) } } });
    const created = await c.req<{ metadata: { resourceVersion: string } }>('admin', 'POST', ctbPath, { body: big });
    expect(created.status).toBe(201);
    for (let i = 0; i < 20; i++) {
      const res = await c.req('admin', 'PATCH', `${ctbPath}/big`, { raw: JSON.stringify({ metadata: { labels: { i: String(i) } } }), contentType: 'application/merge-patch+json' });
      expect(res.status).toBe(200);
    }
    await c.req('admin', 'GET', ctbPath); // a consistent list: the cache has caught up

    const metrics = (await c.req('admin', 'GET', '/metrics')).text;
    expect(gauge(metrics, 'apiserver_watch_cache_window_bytes_limit')).toBe(300_000);
    expect(gauge(metrics, 'apiserver_watch_cache_window_events_limit')).toBe(10_000);
    const bytes = gauge(metrics, 'apiserver_watch_cache_window_bytes')!;
    expect(bytes).toBeGreaterThan(200_000);
    expect(bytes).toBeLessThanOrEqual(300_000);
    expect(gauge(metrics, 'apiserver_watch_cache_window_events')).toBe(2);
    expect(gauge(metrics, 'apiserver_storage_read_cache_bytes_limit')).toBe(32 * 1024 * 1024);

    // The first revisions left the window: a watch from there is told to re-list.
    const res = await request(`${c.url}${ctbPath}?watch=true&resourceVersion=${created.json.metadata.resourceVersion}`, { dispatcher: c.agent('reader') });
    const events = (await res.body.text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { code?: number } });
    expect(events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) }]);
  });
});
