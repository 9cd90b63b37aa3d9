import { Agent, request } from 'undici';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
  const items: Array<[string, string | undefined, Record<string, string>]> = [
    ['plain-a', undefined, { team: 'a', tier: 'gold' }],
    ['plain-b', undefined, { team: 'b' }],
    ['plain-c', undefined, { team: 'a' }],
    ['example.com:signer:x', 'example.com/signer', { team: 'b' }],
  ];
  for (const [name, signer, labels] of items) {
    const res = await c.req('admin', 'POST', ctbPath, { body: bundle(name, c.anchorPem, signer, { metadata: { labels } }) });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await c.close();
});

type List = { kind: string; apiVersion: string; metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number }; items: Array<{ metadata: { name: string }; kind?: string }> };
const names = (l: List) => l.items.map((i) => i.metadata.name);

describe('list', () => {
  it('lists everything as a ClusterTrustBundleList with the list resourceVersion', async () => {
    const res = await c.req<List>('reader', 'GET', ctbPath);
    expect(res.status).toBe(200);
    expect(res.json.kind).toBe('ClusterTrustBundleList');
    expect(res.json.apiVersion).toBe('certificates.plat.io/v1alpha1');
    expect(names(res.json)).toEqual(['example.com:signer:x', 'plain-a', 'plain-b', 'plain-c']);
    expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(res.json.items[0]!.kind).toBeUndefined();
  });

  it('filters by labelSelector (=, !=, in, exists) and answers 400 for a malformed one', async () => {
    const q = async (sel: string) => names((await c.req<List>('reader', 'GET', `${ctbPath}?labelSelector=${encodeURIComponent(sel)}`)).json);
    expect(await q('team=a')).toEqual(['plain-a', 'plain-c']);
    expect(await q('team!=a')).toEqual(['example.com:signer:x', 'plain-b']);
    expect(await q('team in (b),tier')).toEqual([]);
    expect(await q('tier')).toEqual(['plain-a']);
    const bad = await c.req('reader', 'GET', `${ctbPath}?labelSelector=${encodeURIComponent('team in a')}`);
    expect(bad.status).toBe(400);
    expect(bad.json['reason']).toBe('BadRequest');
  });

  it('filters by spec.signerName and metadata.name; other fields are 400 with Kubernetes message', async () => {
    const bySigner = await c.req<List>('reader', 'GET', `${ctbPath}?fieldSelector=spec.signerName%3Dexample.com%2Fsigner`);
    expect(names(bySigner.json)).toEqual(['example.com:signer:x']);
    const notSigner = await c.req<List>('reader', 'GET', `${ctbPath}?fieldSelector=spec.signerName!%3Dexample.com%2Fsigner`);
    expect(names(notSigner.json)).toEqual(['plain-a', 'plain-b', 'plain-c']);
    const doubleEq = await c.req<List>('reader', 'GET', `${ctbPath}?fieldSelector=metadata.name%3D%3Dplain-b`);
    expect(names(doubleEq.json)).toEqual(['plain-b']);
    const bad = await c.req('reader', 'GET', `${ctbPath}?fieldSelector=spec.trustBundle%3Dx`);
    expect(bad.status).toBe(400);
    expect(bad.json['message']).toBe('field label not supported: spec.trustBundle');
  });

  it('paginates with limit and continue, reporting remainingItemCount', async () => {
    const first = await c.req<List>('reader', 'GET', `${ctbPath}?limit=3`);
    expect(names(first.json)).toHaveLength(3);
    expect(first.json.metadata.continue).toBeTruthy();
    expect(first.json.metadata.remainingItemCount).toBe(1);
    const second = await c.req<List>('reader', 'GET', `${ctbPath}?limit=3&continue=${encodeURIComponent(first.json.metadata.continue!)}`);
    expect(names(second.json)).toEqual(['plain-c']);
    expect(second.json.metadata.continue).toBeUndefined();
    expect(second.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    const garbage = await c.req('reader', 'GET', `${ctbPath}?limit=3&continue=garbage`);
    expect(garbage.status).toBe(400);
  });

  it('validates resourceVersionMatch like Kubernetes (422 ListOptions)', async () => {
    const noRv = await c.req('reader', 'GET', `${ctbPath}?resourceVersionMatch=Exact`);
    expect(noRv.status).toBe(422);
    expect(noRv.json['message']).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const exactZero = await c.req('reader', 'GET', `${ctbPath}?resourceVersion=0&resourceVersionMatch=Exact`);
    expect(exactZero.status).toBe(422);
    const sendInitial = await c.req('reader', 'GET', `${ctbPath}?sendInitialEvents=true`);
    expect(sendInitial.status).toBe(422);
    expect(String(sendInitial.json['message'])).toContain('sendInitialEvents is forbidden for list');
    const badLimit = await c.req('reader', 'GET', `${ctbPath}?limit=ten`);
    expect(badLimit.status).toBe(400);
  });

  it('serves a list at an exact and a not-older-than resourceVersion', async () => {
    const now = await c.req<List>('reader', 'GET', ctbPath);
    const rv = now.json.metadata.resourceVersion;
    await c.req('admin', 'POST', ctbPath, { body: bundle('later', c.anchorPem) });
    const exact = await c.req<List>('reader', 'GET', `${ctbPath}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
    expect(names(exact.json)).not.toContain('later');
    const notOlder = await c.req<List>('reader', 'GET', `${ctbPath}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(names(notOlder.json)).toContain('later');
    await c.req('admin', 'DELETE', `${ctbPath}/later`);
  });

  it('passes the store resourceVersion errors through: 400 for malformed or combined with continue, 504 too large', async () => {
    const first = await c.req<List>('reader', 'GET', `${ctbPath}?limit=1`);
    const withRv = await c.req('reader', 'GET', `${ctbPath}?limit=1&resourceVersion=1&continue=${encodeURIComponent(first.json.metadata.continue!)}`);
    expect(withRv.status).toBe(400);
    expect(withRv.json['message']).toBe('specifying resource version is not allowed when using continue');
    expect((await c.req('reader', 'GET', `${ctbPath}?resourceVersion=abc`)).status).toBe(400);
    expect((await c.req('reader', 'GET', `${ctbPath}/plain-a?resourceVersion=abc`)).status).toBe(400);
    const tooLarge = await c.req('reader', 'GET', `${ctbPath}?resourceVersion=999999&resourceVersionMatch=NotOlderThan`);
    expect(tooLarge.status).toBe(504);
    expect(tooLarge.headers['retry-after']).toBe('1');
    expect(tooLarge.json['reason']).toBe('Timeout');
  });

  it('serves YAML lists, PartialObjectMetadataList and HEAD', async () => {
    const yaml = await c.req('reader', 'GET', `${ctbPath}?labelSelector=team%3Db`, { headers: { accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toMatch(/^kind: ClusterTrustBundleList\napiVersion: certificates.plat.io\/v1alpha1\n/);
    const partial = await c.req<{ kind: string; apiVersion: string; items: Array<{ kind: string; metadata: { name: string }; spec?: unknown }> }>(
      'reader',
      'GET',
      `${ctbPath}?labelSelector=team%3Db`,
      { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } },
    );
    expect(partial.json.kind).toBe('PartialObjectMetadataList');
    expect(partial.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(partial.json.items.map((i) => [i.kind, i.metadata.name, i.spec])).toEqual([
      ['PartialObjectMetadata', 'example.com:signer:x', undefined],
      ['PartialObjectMetadata', 'plain-b', undefined],
    ]);
    const head = await c.req('reader', 'HEAD', `${ctbPath}/plain-a`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(100);
  });

  it('answers a Table with one row per object', async () => {
    const res = await c.req<{ kind: string; rows: Array<{ cells: string[] }> }>('reader', 'GET', `${ctbPath}?labelSelector=team%3Db`, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(res.json.kind).toBe('Table');
    expect(res.json.rows.map((r) => r.cells.slice(0, 2))).toEqual([
      ['example.com:signer:x', 'example.com/signer'],
      ['plain-b', '<none>'],
    ]);
    const full = await c.req<{ rows: Array<{ object: { kind: string; spec: { signerName?: string } } }> }>(
      'reader',
      'GET',
      `${ctbPath}?labelSelector=team%3Db&includeObject=Object`,
      { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
    );
    expect(full.json.rows[0]!.object.kind).toBe('ClusterTrustBundle');
    expect(full.json.rows[0]!.object.spec.signerName).toBe('example.com/signer');
    const bad = await c.req('reader', 'GET', `${ctbPath}?includeObject=All`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(bad.status).toBe(400);
  });

  it('gzips large responses when the client accepts gzip', async () => {
    for (let i = 0; i < 40; i++) {
      await c.req('admin', 'POST', ctbPath, { body: bundle(`bulk-${String(i).padStart(2, '0')}`, c.anchorPem, undefined, { metadata: { labels: { bulk: 'yes' }, annotations: { filler: 'f'.repeat(4000) } } }) });
    }
    const agent = c.agent('reader');
    const res = await request(`${c.url}${ctbPath}?labelSelector=bulk`, { dispatcher: agent, headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    const { gunzipSync } = await import('node:zlib');
    const body = JSON.parse(gunzipSync(Buffer.from(await res.body.arrayBuffer())).toString()) as List;
    expect(body.items).toHaveLength(40);
    const plain = await c.req<List>('reader', 'GET', `${ctbPath}?labelSelector=bulk`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json.items).toHaveLength(40);
    await c.req('admin', 'DELETE', `${ctbPath}?labelSelector=bulk`);
  });
});

/** Opens a watch and collects its events until `stop()` or the server ends the stream. */
async function openWatch(agent: Agent, url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { dispatcher: agent, headers });
  const events: Array<{ type: string; object: { kind?: string; metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string; rows?: unknown[]; columnDefinitions?: unknown } }> = [];
  let buffer = '';
  let ended = false;
  const done = (async () => {
    try {
      for await (const chunk of res.body) {
        buffer += chunk.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
        }
      }
    } catch {
      // destroyed by stop()
    }
    ended = true;
  })();
  const waitFor = async (pred: () => boolean, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out; events: ${JSON.stringify(events.map((e) => [e.type, e.object.metadata?.name]))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    status: res.statusCode,
    headers: res.headers,
    events,
    waitFor,
    ended: () => ended,
    async stop() {
      res.body.destroy();
      await done;
    },
    done,
  };
}

describe('watch', () => {
  it('streams ADDED initial events, then MODIFIED and DELETED as JSON lines', async () => {
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&labelSelector=team%3Da`);
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    await w.waitFor(() => w.events.length >= 2);
    expect(w.events.map((e) => [e.type, e.object.metadata?.name])).toEqual([
      ['ADDED', 'plain-a'],
      ['ADDED', 'plain-c'],
    ]);
    expect(w.events[0]!.object.kind).toBe('ClusterTrustBundle');
    await c.req('admin', 'PATCH', `${ctbPath}/plain-a`, { raw: '{"metadata":{"annotations":{"x":"1"}}}', contentType: 'application/merge-patch+json' });
    await w.waitFor(() => w.events.length >= 3);
    expect(w.events[2]!.type).toBe('MODIFIED');
    await w.stop();
  });

  it('turns objects entering and leaving the selection into ADDED and DELETED', async () => {
    const list = await c.req<List>('reader', 'GET', ctbPath);
    const rv = list.json.metadata.resourceVersion;
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=1&resourceVersion=${rv}&labelSelector=team%3Da`);
    await c.req('admin', 'PATCH', `${ctbPath}/plain-b`, { raw: '{"metadata":{"labels":{"team":"a"}}}', contentType: 'application/merge-patch+json' });
    await w.waitFor(() => w.events.length >= 1);
    expect([w.events[0]!.type, w.events[0]!.object.metadata?.name]).toEqual(['ADDED', 'plain-b']);
    const moved = await c.req<{ metadata: { resourceVersion: string } }>('admin', 'PATCH', `${ctbPath}/plain-b`, {
      raw: '{"metadata":{"labels":{"team":"b"}}}',
      contentType: 'application/merge-patch+json',
    });
    await w.waitFor(() => w.events.length >= 2);
    expect([w.events[1]!.type, w.events[1]!.object.metadata?.name]).toEqual(['DELETED', 'plain-b']);
    expect(w.events[1]!.object.metadata?.resourceVersion).toBe(moved.json.metadata.resourceVersion);
    await w.stop();
  });

  it('filters by field selector and by the name in the path (deprecated /watch/ form)', async () => {
    const w = await openWatch(c.agent('reader'), `${c.url}/apis/certificates.plat.io/v1alpha1/watch/clustertrustbundles/plain-c`);
    await w.waitFor(() => w.events.length >= 1);
    expect(w.events.map((e) => e.object.metadata?.name)).toEqual(['plain-c']);
    await w.stop();
    const f = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&fieldSelector=spec.signerName%3Dexample.com%2Fsigner`);
    await f.waitFor(() => f.events.length >= 1);
    expect(f.events.map((e) => e.object.metadata?.name)).toEqual(['example.com:signer:x']);
    await f.stop();
  });

  it('ends the stream after timeoutSeconds', async () => {
    const started = Date.now();
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&timeoutSeconds=1&labelSelector=none`);
    await w.done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // Ended by timeoutSeconds=1, not by the server's own watch timeout (minutes): 10 s leaves a loaded machine room.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('sends BOOKMARK events with allowWatchBookmarks and the initial-events-end bookmark with sendInitialEvents', async () => {
    const w = await openWatch(
      c.agent('reader'),
      `${c.url}${ctbPath}?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=team%3Da`,
    );
    await w.waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'));
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.kind).toBe('ClusterTrustBundle');
    expect(bookmark.object.metadata?.annotations?.['plat.io/initial-events-end']).toBe('true');
    expect(w.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata?.name)).toEqual(['plain-a', 'plain-c']);
    await w.stop();
    const bad = await c.req('reader', 'GET', `${ctbPath}?watch=true&sendInitialEvents=true`);
    expect(bad.status).toBe(422);
    expect(String(bad.json['message'])).toContain('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  });

  it('sends periodic BOOKMARK events only when asked for them', async () => {
    const rv = (await c.req<List>('reader', 'GET', ctbPath)).json.metadata.resourceVersion;
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
    await w.waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'));
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(bookmark.object.metadata?.annotations?.['plat.io/initial-events-end']).toBeUndefined();
    await w.stop();
    const plain = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&resourceVersion=${rv}`);
    await new Promise((r) => setTimeout(r, 600));
    expect(plain.events.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
    await plain.stop();
  });

  it('answers a compacted resourceVersion with 200 and one 410 Expired ERROR event', async () => {
    const rv = await c.storage.currentRevision();
    await c.req('admin', 'PATCH', `${ctbPath}/plain-c`, { raw: '{"metadata":{"annotations":{"c":"1"}}}', contentType: 'application/merge-patch+json' });
    await c.storage.compact(rv + 1);
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&resourceVersion=1`);
    await w.done;
    expect(w.status).toBe(200);
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe('ERROR');
    expect(w.events[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('streams Table events for kubectl get -w, with column definitions only in the first', async () => {
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true&labelSelector=team%3Da`, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    await w.waitFor(() => w.events.length >= 2);
    expect(w.events[0]!.object.kind).toBe('Table');
    expect(w.events[0]!.object.columnDefinitions).toHaveLength(5);
    expect(w.events[1]!.object.columnDefinitions).toBeNull();
    expect(w.events[1]!.object.rows).toHaveLength(1);
    await w.stop();
  });

  it('holds events back while a slow watcher does not read, then delivers all of them in order', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const rv = (await c.req<List>('reader', 'GET', ctbPath)).json.metadata.resourceVersion;
    const res = await request(`${c.url}${ctbPath}?watch=true&resourceVersion=${rv}&labelSelector=slow`, { dispatcher: c.agent('reader') });
    const big = 'x'.repeat(60_000);
    const count = 60;
    for (let i = 0; i < count; i++) {
      const r = await c.req('admin', 'POST', ctbPath, {
        body: bundle(`slow-${String(i).padStart(2, '0')}`, c.anchorPem, undefined, { metadata: { labels: { slow: 'yes' }, annotations: { big } } }),
      });
      expect(r.status).toBe(201);
    }
    const names: string[] = [];
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        names.push((JSON.parse(buffer.slice(0, nl)) as { object: { metadata: { name: string } } }).object.metadata.name);
        buffer = buffer.slice(nl + 1);
      }
      if (names.length >= count) break;
    }
    res.body.destroy();
    process.off('warning', onWarning);
    expect(names).toEqual(Array.from({ length: count }, (_, i) => `slow-${String(i).padStart(2, '0')}`));
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    await c.req('admin', 'DELETE', `${ctbPath}?labelSelector=slow`);
  });

  it('counts registered watchers in /metrics', async () => {
    const w = await openWatch(c.agent('reader'), `${c.url}${ctbPath}?watch=true`);
    await w.waitFor(() => w.events.length >= 1);
    // Polled: the server's end of the earlier tests' watches may still be closing, and counted.
    const registered = /apiserver_registered_watchers\{group="certificates.plat.io",version="v1alpha1",kind="ClusterTrustBundle"\} 1$/m;
    const longRunning = /apiserver_longrunning_requests\{verb="WATCH",[^}]*resource="clustertrustbundles"[^}]*\} 1$/m;
    let metrics = await c.req('admin', 'GET', '/metrics');
    for (const end = Date.now() + 15_000; !(registered.test(metrics.text) && longRunning.test(metrics.text)) && Date.now() < end; metrics = await c.req('admin', 'GET', '/metrics')) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(metrics.text).toMatch(/apiserver_registered_watchers\{group="certificates.plat.io",version="v1alpha1",kind="ClusterTrustBundle"\} 1/);
    expect(metrics.text).toMatch(/apiserver_watch_events_total\{group="certificates.plat.io",version="v1alpha1",kind="ClusterTrustBundle"\} [1-9]/);
    expect(metrics.text).toMatch(/apiserver_longrunning_requests\{verb="WATCH",group="certificates.plat.io",version="v1alpha1",resource="clustertrustbundles",scope="cluster",component="apiserver"\} 1/);
    await w.stop();
  });
});
