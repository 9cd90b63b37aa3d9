import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { RestClient } from './rest-client.js';
import type { RestConfig } from './rest-config.js';
import { readWatchEvents } from './watch-events.js';
import { makePki, restConfigFor, sendJson, startHttpsServer, type Pki, type RecordedRequest, type TestServer } from '../test/tls-fixture.js';

let pki: Pki;
let server: TestServer;
let handler: (req: RecordedRequest, res: ServerResponse) => void = (_req, res) => sendJson(res, 200, {});

beforeAll(async () => {
  pki = makePki();
  server = await startHttpsServer(pki, (req, res) => handler(req, res));
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const config = (over: Partial<RestConfig> = {}): RestConfig => restConfigFor(server, pki, over);

const line = (type: string, rv: string) => JSON.stringify({ type, object: { kind: 'Thing', metadata: { resourceVersion: rv } } }) + '\n';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('RestClient.watch', () => {
  it('yields events as they arrive, split across and within chunks, and ends with the stream', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const all = line('ADDED', '1') + line('MODIFIED', '2') + line('BOOKMARK', '3');
      res.write(all.slice(0, 10));
      setTimeout(() => res.write(all.slice(10, 80)), 20);
      setTimeout(() => res.end(all.slice(80)), 40);
    };
    const client = new RestClient(config({ timeoutMs: 5000 }));
    const events = await collect(client.watch<{ metadata: { resourceVersion: string } }>({ path: '/apis/x', query: { resourceVersion: '7', allowWatchBookmarks: true } }));
    expect(events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([
      ['ADDED', '1'],
      ['MODIFIED', '2'],
      ['BOOKMARK', '3'],
    ]);
    // watch=true is added; the request timeout is not sent as `timeout` (a watch ends by timeoutSeconds).
    expect(server.requests[0].url).toBe('/apis/x?resourceVersion=7&allowWatchBookmarks=true&watch=true');
    await client.close();
  });

  it('rejects with the StatusError of a non-2xx answer', async () => {
    handler = (_req, res) => sendJson(res, 403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', message: 'no watching', code: 403 });
    const client = new RestClient(config());
    await expect(collect(client.watch({ path: '/apis/x' }))).rejects.toMatchObject({ name: 'StatusError', reason: 'Forbidden', message: 'no watching' });
    await client.close();
  });

  it('ends a quiet watch after the idle timeout, and a busy one never', async () => {
    let beat: ReturnType<typeof setInterval> | undefined;
    handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line('ADDED', '1'));
      if (req.url.includes('busy')) {
        let n = 2;
        beat = setInterval(() => (n < 8 ? res.write(line('BOOKMARK', String(n++))) : (clearInterval(beat), res.end())), 60);
      }
    };
    const client = new RestClient(config());
    const quiet: string[] = [];
    const started = Date.now();
    await expect(
      (async () => {
        for await (const e of client.watch<{ metadata: { resourceVersion: string } }>({ path: '/quiet', idleTimeoutMs: 300 })) quiet.push(e.object.metadata.resourceVersion);
      })(),
    ).rejects.toMatchObject({ code: 'Timeout', message: 'no watch event or bookmark within 300 ms' });
    expect(quiet).toEqual(['1']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Six events 60 ms apart: the stream outlives the idle timeout because every event resets it.
    const busy = await collect(client.watch({ path: '/busy', idleTimeoutMs: 200 }));
    expect(busy).toHaveLength(7);
    await client.close();
  });

  it('stops when the signal aborts, and when the consumer stops reading', async () => {
    const opened: ServerResponse[] = [];
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line('ADDED', '1'));
      opened.push(res);
    };
    const client = new RestClient(config());
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const e of client.watch({ path: '/a', signal: controller.signal })) {
        seen.push(e.type);
        controller.abort();
      }
    })();
    await expect(run).rejects.toBeDefined();
    expect(seen).toEqual(['ADDED']);
    for await (const e of client.watch({ path: '/b' })) {
      expect(e.type).toBe('ADDED');
      break;
    }
    // Both server responses see their client go away.
    await new Promise<void>((resolve) => {
      const check = () => (opened.every((r) => r.destroyed || r.closed) ? resolve() : setTimeout(check, 20));
      check();
    });
    await client.close();
  });

  it('decodes a gzip stream', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(line('ADDED', '1') + line('DELETED', '2')));
    };
    const client = new RestClient(config());
    expect((await collect(client.watch({ path: '/z' }))).map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    await client.close();
  });
});

describe('readWatchEvents', () => {
  async function* chunks(...parts: string[]) {
    for (const p of parts) yield Buffer.from(p);
  }

  it('keeps a multi-byte character split across chunks intact', async () => {
    const text = line('ADDED', 'é€');
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(0xe2) + 1;
    async function* split() {
      yield bytes.subarray(0, cut);
      yield bytes.subarray(cut);
    }
    const [ev] = await collect(readWatchEvents<{ metadata: { resourceVersion: string } }>(split()));
    expect(ev.object.metadata.resourceVersion).toBe('é€');
  });

  it('refuses malformed events and events past the size bound', async () => {
    await expect(collect(readWatchEvents(chunks('{"type":"ADDED"}\n')))).rejects.toMatchObject({ code: 'DecodeFailed' });
    await expect(collect(readWatchEvents(chunks('not json\n')))).rejects.toMatchObject({ code: 'DecodeFailed' });
    await expect(collect(readWatchEvents(chunks('x'.repeat(600), 'y'.repeat(600)), 1000))).rejects.toMatchObject({
      code: 'DecodeFailed',
      message: 'a watch event is larger than 1000 bytes',
    });
    expect(await collect(readWatchEvents(chunks('\n', line('ADDED', '1'), '\n')))).toHaveLength(1);
  });
});
