import { request } from 'undici';
import { MemoryStorage, type Watch, type WatchEvent, type WatchOptions } from '@plat/storage';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

/**
 * A store that breaks the watch rule below the HTTP layer: after the initial state, every event
 * comes twice and the first live event comes again after each later one (a DELETED object would
 * come back as ADDED).
 */
class RepeatingStorage extends MemoryStorage {
  override async watch(prefix: string, opts?: WatchOptions): Promise<Watch> {
    const inner = await super.watch(prefix, opts);
    const iterator = async function* (): AsyncGenerator<WatchEvent> {
      let first: WatchEvent | undefined;
      for await (const ev of inner) {
        yield ev;
        if (ev.type === 'BOOKMARK' || ev.initial) continue;
        yield ev;
        if (!first) first = ev;
        else yield first;
      }
    };
    return { stop: () => inner.stop(), [Symbol.asyncIterator]: iterator };
  }
}

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ storage: new RepeatingStorage() });
});
afterAll(async () => {
  await c.close();
});

describe('the HTTP watch guard', () => {
  it('sends each event once and in order, and counts and refuses the rest on apiserver_watch_events_duplicate_dropped_total{layer="http"}', async () => {
    const made = await c.req<{ metadata: { resourceVersion: string } }>('admin', 'POST', ctbPath, { body: bundle('guard-a', c.anchorPem) });
    expect(made.status).toBe(201);
    const res = await request(`${c.url}${ctbPath}?watch=true&resourceVersion=0`, { dispatcher: c.agent('reader') });
    const lines: Array<{ type: string; object: { metadata: { name: string; resourceVersion: string } } }> = [];
    let buffer = '';
    const reading = (async () => {
      try {
        for await (const chunk of res.body) {
          buffer += chunk.toString();
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            lines.push(JSON.parse(buffer.slice(0, nl)));
            buffer = buffer.slice(nl + 1);
          }
        }
      } catch {
        // destroyed below
      }
    })();
    await c.req('admin', 'POST', ctbPath, { body: bundle('guard-b', c.anchorPem) });
    await c.req('admin', 'DELETE', `${ctbPath}/guard-a`);
    await c.req('admin', 'POST', ctbPath, { body: bundle('guard-c', c.anchorPem) });
    const deadline = Date.now() + 15_000;
    while (lines.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    res.body.destroy();
    await reading;
    expect(lines.map((l) => `${l.type} ${l.object.metadata.name}`)).toEqual(['ADDED guard-a', 'ADDED guard-b', 'DELETED guard-a', 'ADDED guard-c']);
    const rvs = lines.slice(1).map((l) => Number(l.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    const metrics = await c.req('admin', 'GET', '/metrics');
    // Each of the three live events once more, and the first one after the second and the third.
    expect(metrics.text).toContain('apiserver_watch_events_duplicate_dropped_total{layer="http"} 5');
  });
});
