import type { ServerResponse } from 'node:http';
import { canonicalTrustBundle, type PemKeyPair } from '@plat/x509';
import { eventually, openWatch, sendList, sendStatus, startScriptedServer, threeCas, type Bundle, type ScriptedServer } from '../test/scripted-server.js';
import type { TrustAnchors } from './trust-anchors.js';
import { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';

let server: ScriptedServer;
let a: PemKeyPair, b: PemKeyPair, c: PemKeyPair;
const signer = 'example.com/signer';
const fast = { backoff: { initialMs: 20, maxMs: 80 } };

beforeAll(async () => {
  [server, [a, b, c]] = await Promise.all([startScriptedServer(), threeCas()]);
});
afterAll(() => server.close());

const one = (pem: string, rv: string, extra: Partial<Bundle> = {}): Bundle => ({ name: 'example.com:signer:one', resourceVersion: rv, signerName: signer, pem, ...extra });

/** Runs a watch in the background; `changes` collects onChange calls, `errors` onError calls. */
const liveWatches: AbortController[] = [];
// A test that fails half-way must not leave its watch retrying into the next test.
afterEach(() => {
  for (const c of liveWatches.splice(0)) c.abort();
});

function start(options: Partial<WatchTrustAnchorsOptions> = {}, selection: Parameters<typeof watchTrustAnchors>[1] = { signerName: signer, labelSelector: {} }) {
  const controller = new AbortController();
  liveWatches.push(controller);
  const changes: TrustAnchors[] = [];
  const errors: { error: Error; retryInMs?: number }[] = [];
  const done = watchTrustAnchors(server.client(), selection, {
    signal: controller.signal,
    onChange: (x) => void changes.push(x),
    onError: (error, info) => void errors.push({ error, retryInMs: info.retryInMs }),
    ...fast,
    ...options,
  });
  return { controller, changes, errors, done };
}

const pemOf = (...certs: PemKeyPair[]) => canonicalTrustBundle(certs.map((x) => x.certPem)).pem;
const watches = () => server.requests.filter((r) => r.url.searchParams.get('watch') === 'true');
const lists = () => server.requests.filter((r) => r.url.searchParams.get('watch') !== 'true');

beforeEach(() => server.nextTest());

describe('watchTrustAnchors', () => {
  it('lists, then watches from the list\'s resourceVersion with bookmarks, calling onChange only when the digest changes', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '100', [one(a.certPem, '90')]);
      stream = openWatch(res);
    };
    const w = start();
    await eventually(() => stream !== undefined);
    expect(w.changes.map((x) => x.pem)).toEqual([pemOf(a)]);
    expect(Object.fromEntries(watches()[0].url.searchParams)).toMatchObject({
      fieldSelector: `spec.signerName=${signer}`,
      resourceVersion: '100',
      allowWatchBookmarks: 'true',
      watch: 'true',
    });
    // A label change keeps the anchors: no call. A new anchor: one call. A second bundle with a known anchor: none.
    stream!.bundle('MODIFIED', one(a.certPem, '101', { labels: { x: 'y' } }));
    stream!.bundle('MODIFIED', one(a.certPem + b.certPem, '102'));
    stream!.bundle('ADDED', { name: 'example.com:signer:two', resourceVersion: '103', signerName: signer, pem: b.certPem });
    stream!.bookmark('110');
    stream!.bundle('DELETED', one(a.certPem + b.certPem, '111'));
    await eventually(() => w.changes.length === 3);
    expect(w.changes.map((x) => x.pem)).toEqual([pemOf(a), pemOf(a, b), pemOf(b)]);
    expect(w.changes[2].sources.map((s) => [s.name, s.resourceVersion])).toEqual([['example.com:signer:two', '103']]);
    // The server ends the watch (timeoutSeconds): the next one resumes from the last resourceVersion, no relist.
    const before = stream;
    stream!.end();
    await eventually(() => stream !== before);
    expect(watches()[1].url.searchParams.get('resourceVersion')).toBe('111');
    expect(lists()).toHaveLength(1);
    w.controller.abort();
    await expect(w.done).resolves.toBeUndefined();
    expect(w.errors).toEqual([]);
  });

  it('relists on 410 Gone, whether an ERROR event or the answer to the watch', async () => {
    let listed = 0;
    let watched = 0;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') {
        listed++;
        return sendList(res, String(200 + listed), [one(listed === 1 ? a.certPem : listed === 2 ? b.certPem : c.certPem, String(200 + listed))]);
      }
      watched++;
      if (watched === 1) {
        const s = openWatch(res);
        s.send('ERROR', { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', message: 'too old resource version: 1 (5)', code: 410 });
        return s.end();
      }
      if (watched === 2) return sendStatus(res, 410, 'Gone', 'too old resource version');
      openWatch(res);
    };
    const w = start();
    await eventually(() => w.changes.length === 3 && watches().length === 3);
    expect(w.changes.map((x) => x.pem)).toEqual([pemOf(a), pemOf(b), pemOf(c)]);
    expect(watches().map((r) => r.url.searchParams.get('resourceVersion'))).toEqual(['201', '202', '203']);
    w.controller.abort();
    await w.done;
  });

  it('reconnects a silent connection after the idle timeout, resuming from the last resourceVersion', async () => {
    let watched = 0;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '300', [one(a.certPem, '300')]);
      watched++;
      const s = openWatch(res);
      if (watched === 1) s.bookmark('305');
      // Then nothing: a black-holed connection looks like this from the client.
    };
    const w = start({ idleTimeoutMs: 250 });
    await eventually(() => watched >= 2, 5000);
    expect(watches()[1].url.searchParams.get('resourceVersion')).toBe('305');
    expect(lists()).toHaveLength(1);
    expect(w.errors[0].error).toMatchObject({ code: 'Timeout', message: 'no watch event or bookmark within 250 ms' });
    w.controller.abort();
    await w.done;
  });

  it('backs off with jitter when the server keeps closing watches at once', async () => {
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '1', [one(a.certPem, '1')]);
      openWatch(res).end();
    };
    const w = start({ backoff: { initialMs: 40, maxMs: 160 } });
    await eventually(() => w.errors.length >= 4);
    w.controller.abort();
    await w.done;
    expect(w.errors.every((e) => (e.error as { code?: string }).code === 'ShortWatch')).toBe(true);
    // 40, 80, 160, 160 ms, each stretched by 0–100 %.
    const delays = w.errors.slice(0, 4).map((e) => e.retryInMs!);
    [40, 80, 160, 160].forEach((base, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(base);
      expect(delays[i]).toBeLessThanOrEqual(2 * base);
    });
  });

  it('ends at once when the first list is refused (401, 403, 404), but retries a 5xx', async () => {
    for (const [code, reason] of [
      [401, 'Unauthorized'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
    ] as const) {
      server.handler = (_req, res) => sendStatus(res, code, reason, `no (${code})`);
      await expect(start().done).rejects.toMatchObject({ name: 'StatusError', code, message: `no (${code})` });
    }
    let calls = 0;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') === 'true') return void openWatch(res);
      if (++calls < 3) return sendStatus(res, 503, 'ServiceUnavailable', 'starting');
      sendList(res, '7', [one(a.certPem, '7')]);
    };
    const w = start();
    await eventually(() => w.changes.length === 1);
    expect(w.errors.map((e) => (e.error as { code?: number }).code)).toEqual([503, 503]);
    w.controller.abort();
    await w.done;
  });

  it('after the first list, retries even 403 and keeps the last anchors meanwhile', async () => {
    let listed = 0;
    let watched = 0;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') {
        listed++;
        if (listed === 2) return sendStatus(res, 403, 'Forbidden', 'access revoked');
        return sendList(res, String(listed), [one(listed === 1 ? a.certPem : b.certPem, String(listed))]);
      }
      if (++watched === 1) return sendStatus(res, 403, 'Forbidden', 'access revoked');
      openWatch(res);
    };
    const w = start();
    await eventually(() => w.changes.length === 2);
    expect(w.changes.map((x) => x.pem)).toEqual([pemOf(a), pemOf(b)]);
    expect(w.errors.map((e) => e.error.message)).toEqual(['access revoked', 'access revoked']);
    w.controller.abort();
    await w.done;
  });

  it('keeps the last anchors while a selection that is not optional matches nothing, and says so', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '50', [one(a.certPem, '50')]);
      stream = openWatch(res);
    };
    const w = start();
    await eventually(() => stream !== undefined);
    stream!.bundle('DELETED', one(a.certPem, '51'));
    const noMatch = () => w.errors.filter((e) => (e.error as { code?: string }).code === 'NoMatch');
    await eventually(() => noMatch().length === 1).catch((err) => {
      throw new Error(`${err.message}: errors ${JSON.stringify(w.errors.map((e) => e.error.message))}, changes ${w.changes.length}, requests ${server.requests.map((r) => r.url.search).join(' | ')}`);
    });
    stream!.bundle('ADDED', one(a.certPem, '52'));
    stream!.bundle('MODIFIED', one(b.certPem, '53'));
    await eventually(() => w.changes.length === 2);
    // Back to the same anchors as before: no call; then b: one call. NoMatch was said once.
    expect(w.changes.map((x) => x.pem)).toEqual([pemOf(a), pemOf(b)]);
    expect(noMatch()).toHaveLength(1);
    w.controller.abort();
    await w.done;
  });

  it('calls onChange with no anchors for an optional selection that matches nothing', async () => {
    server.handler = (_req, res, url) => (url.searchParams.get('watch') !== 'true' ? sendList(res, '1', []) : void openWatch(res));
    const w = start({}, { name: 'absent', optional: true });
    await eventually(() => w.changes.length === 1);
    expect(w.changes[0]).toMatchObject({ pem: '', anchors: [], sources: [] });
    expect(lists()[0].url.searchParams.get('fieldSelector')).toBe('metadata.name=absent');
    w.controller.abort();
    await w.done;
  });

  it('delivers changes one at a time, and ends with the error an onChange throws', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '1', [one(a.certPem, '1')]);
      stream = openWatch(res);
    };
    let running = 0;
    let overlapped = false;
    const seen: string[] = [];
    const boom = new Error('handler failed');
    const w = start({
      onChange: async (x) => {
        overlapped ||= running > 0;
        running++;
        await new Promise((r) => setTimeout(r, 30));
        running--;
        seen.push(x.digest);
        if (seen.length === 3) throw boom;
      },
    });
    await eventually(() => stream !== undefined);
    stream!.bundle('MODIFIED', one(b.certPem, '2'));
    stream!.bundle('MODIFIED', one(c.certPem, '3'));
    await expect(w.done).rejects.toBe(boom);
    expect(overlapped).toBe(false);
    expect(seen).toHaveLength(3);
  });

  it('rejects an invalid selection and resolves at once on an aborted signal', async () => {
    await expect(watchTrustAnchors(server.client(), { signerName: 'bad' }, { onChange: () => undefined })).rejects.toMatchObject({ code: 'InvalidSelection' });
    const controller = new AbortController();
    controller.abort();
    await expect(watchTrustAnchors(server.client(), { name: 'x' }, { signal: controller.signal, onChange: () => undefined })).resolves.toBeUndefined();
    expect(server.requests).toEqual([]);
  });

  it('stops its open watch request when the signal aborts', async () => {
    let response: ServerResponse | undefined;
    server.handler = (_req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return sendList(res, '1', [one(a.certPem, '1')]);
      openWatch(res);
      response = res;
    };
    const w = start();
    await eventually(() => response !== undefined);
    w.controller.abort();
    await w.done;
    await eventually(() => response!.destroyed || response!.closed);
  });
});
