import { gzipSync } from 'node:zlib';
import { RestClient, parseWarningHeader } from './rest-client.js';
import type { RestConfig } from './rest-config.js';
import { makePki, restConfigFor, sendJson, startHttpsServer, type Pki, type RecordedRequest, type TestServer } from '../test/tls-fixture.js';
import type { ServerResponse } from 'node:http';

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

describe('RestClient', () => {
  it('sends the bearer token, impersonation headers and user agent, and decodes JSON', async () => {
    handler = (_req, res) => sendJson(res, 200, { kind: 'Thing', ok: true });
    const client = new RestClient(config({ token: 'tok-1', impersonate: { user: 'bob', groups: ['g1', 'g2'], uid: 'u-9', extra: { scopes: ['a'] } } }));
    const res = await client.request({ path: '/apis/x' });
    expect(res.body).toEqual({ kind: 'Thing', ok: true });
    const h = server.requests[0].headers;
    expect(h.authorization).toBe('Bearer tok-1');
    expect(h['impersonate-user']).toBe('bob');
    expect(h['impersonate-group']).toBe('g1, g2');
    expect(h['impersonate-uid']).toBe('u-9');
    expect(h['impersonate-extra-scopes']).toBe('a');
    expect(h['user-agent']).toBe('clientctl/test');
    expect(h['accept-encoding']).toBe('gzip');
    await client.close();
  });

  it('uses basic auth and a client certificate when configured', async () => {
    handler = (_req, res) => sendJson(res, 200, {});
    const { readFileSync } = await import('node:fs');
    const client = new RestClient(
      config({ username: 'u', password: 'p', cert: readFileSync(pki.clientCertFile, 'utf8'), key: readFileSync(pki.clientKeyFile, 'utf8') }),
    );
    await client.request({ path: '/' });
    expect(server.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(server.requests[0].clientCN).toBe('alice');
    await client.close();
  });

  it('keeps the connection alive across requests', async () => {
    handler = (_req, res) => sendJson(res, 200, {});
    const client = new RestClient(config());
    for (const p of ['/a', '/b', '/c', '/d']) {
      await client.request({ path: p });
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(server.requests).toHaveLength(4);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(1);
    await client.close();
  });

  it('decompresses gzip answers and omits accept-encoding with disableCompression', async () => {
    handler = (req, res) => {
      if (req.headers['accept-encoding'] === 'gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ zipped: true })));
      } else sendJson(res, 200, { zipped: false });
    };
    const zipped = new RestClient(config());
    expect((await zipped.request({ path: '/' })).body).toEqual({ zipped: true });
    const plain = new RestClient(config({ disableCompression: true }));
    expect((await plain.request({ path: '/' })).body).toEqual({ zipped: false });
    await zipped.close();
    await plain.close();
  });

  it('rejects a server certificate it cannot verify, and accepts it with insecureSkipTlsVerify', async () => {
    handler = (_req, res) => sendJson(res, 200, { ok: 1 });
    const strict = new RestClient(config({ ca: undefined }));
    await expect(strict.request({ path: '/' })).rejects.toMatchObject({ name: 'ClientError', code: 'Connection' });
    const insecure = new RestClient(config({ ca: undefined, insecureSkipTlsVerify: true }));
    expect((await insecure.request({ path: '/' })).body).toEqual({ ok: 1 });
    await strict.close();
    await insecure.close();
  });

  it('verifies against tlsServerName instead of the dialled host', async () => {
    handler = (_req, res) => sendJson(res, 200, { ok: 1 });
    const good = new RestClient(config({ tlsServerName: 'api.example.test' }));
    expect((await good.request({ path: '/' })).body).toEqual({ ok: 1 });
    const bad = new RestClient(config({ tlsServerName: 'other.example.test' }));
    await expect(bad.request({ path: '/' })).rejects.toMatchObject({ code: 'Connection' });
    await good.close();
    await bad.close();
  });

  it('decodes a Status answer into a StatusError', async () => {
    handler = (_req, res) =>
      sendJson(res, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'clustertrustbundles.certificates.plat.io "x" not found',
        reason: 'NotFound',
        details: { name: 'x', group: 'certificates.plat.io', kind: 'clustertrustbundles' },
        code: 404,
      });
    const client = new RestClient(config());
    const err = await client.request({ path: '/x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StatusError', reason: 'NotFound', code: 404, message: 'clustertrustbundles.certificates.plat.io "x" not found' });
    await client.close();
  });

  it('turns a non-Status error body into client-go generic errors', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found');
    };
    const client = new RestClient(config());
    await expect(client.request({ path: '/nope' })).rejects.toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    };
    await expect(client.request({ path: '/nope' })).rejects.toMatchObject({ reason: 'InternalError', code: 500, message: 'an error on the server ("boom") has prevented the request from succeeding' });
    await client.close();
  });

  it('surfaces Warning headers through onWarning', async () => {
    handler = (_req, res) => sendJson(res, 200, {}, { warning: ['299 - "first warning"', '299 - "second, with comma"'] });
    const seen: string[] = [];
    const client = new RestClient(config(), { onWarning: (w) => seen.push(w) });
    const res = await client.request({ path: '/' });
    expect(seen).toEqual(['first warning', 'second, with comma']);
    expect(res.warnings).toEqual(seen);
    await client.close();
  });

  it('retries an idempotent call on 429 with Retry-After, but not a POST', async () => {
    let calls = 0;
    handler = (_req, res) => {
      calls++;
      if (calls < 3) sendJson(res, 429, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', message: 'slow down', code: 429 }, { 'retry-after': '0' });
      else sendJson(res, 200, { done: true });
    };
    const client = new RestClient(config());
    expect((await client.request({ path: '/' })).body).toEqual({ done: true });
    expect(calls).toBe(3);
    calls = 0;
    await expect(client.request({ method: 'POST', path: '/', body: {} })).rejects.toMatchObject({ reason: 'TooManyRequests' });
    expect(calls).toBe(1);
    calls = -100;
    const bounded = new RestClient(config(), { maxRetries: 2 });
    await expect(bounded.request({ path: '/' })).rejects.toMatchObject({ reason: 'TooManyRequests' });
    expect(calls).toBe(-97);
    await client.close();
    await bounded.close();
  });

  it('adds the timeout query parameter and aborts a slow answer', async () => {
    handler = (req, res) => {
      if (req.url.startsWith('/slow')) setTimeout(() => sendJson(res, 200, {}), 700);
      else sendJson(res, 200, {});
    };
    const client = new RestClient(config({ timeoutMs: 300 }));
    await client.request({ path: '/fast', query: { a: 'b' } });
    expect(server.requests[0].url).toBe('/fast?a=b&timeout=1s');
    await expect(client.request({ path: '/slow' })).rejects.toMatchObject({ code: 'Timeout' });
    await client.close();
  });

  it('reports a refused connection as kubectl does', async () => {
    const client = new RestClient(config({ server: 'https://127.0.0.1:1' }));
    await expect(client.request({ path: '/' })).rejects.toMatchObject({
      message: 'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?',
    });
    await client.close();
  });
});

describe('RestClient over HTTP/2', () => {
  it('speaks HTTP/2 when the server offers it through ALPN', async () => {
    const { createSecureServer } = await import('node:http2');
    const versions: string[] = [];
    const h2 = createSecureServer({ cert: pki.serverCert, key: pki.serverKey, allowHTTP1: true }, (req, res) => {
      versions.push(req.httpVersion);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ via: req.httpVersion }));
    });
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
    const port = (h2.address() as import('node:net').AddressInfo).port;
    const client = new RestClient(config({ server: `https://127.0.0.1:${port}` }));
    try {
      expect((await client.request({ path: '/' })).body).toEqual({ via: '2.0' });
      expect((await client.request({ method: 'PATCH', path: '/', body: '{}', contentType: 'application/merge-patch+json' })).body).toEqual({ via: '2.0' });
    } finally {
      await client.close();
      await new Promise<void>((r) => h2.close(() => r()));
    }
    expect(versions).toEqual(['2.0', '2.0']);
  });
});

describe('parseWarningHeader', () => {
  it('reads code-299 warn-values with escapes and ignores other codes', () => {
    expect(parseWarningHeader('299 - "a \\"quoted\\" word"')).toEqual(['a "quoted" word']);
    expect(parseWarningHeader('199 - "misc", 299 - "kept" "Sat, 01 Jan 2000 00:00:00 GMT"')).toEqual(['kept']);
    expect(parseWarningHeader(undefined)).toEqual([]);
  });
});
