import http2 from 'node:http2';
import { connect } from 'node:tls';
import { bundle, ctbPath, startCluster, type TestCluster } from '../cluster.js';

/** A label selector of about `bytes` characters that matches the label team=a (a long `in` list). */
function longSelector(bytes: number): string {
  const values = ['a'];
  let length = 'team in ()'.length + 1;
  for (let i = 0; length < bytes; i++) {
    values.push(`v${i}`);
    length += `v${i}`.length + 1;
  }
  return `team in (${values.join(',')})`;
}

/** Opens a raw HTTP/1.1 TLS connection as the reader, sends `data`, and collects the answer until close. */
function raw(c: TestCluster, data: string, opts: { waitMs?: number } = {}): Promise<{ text: string; closed: boolean; ms: number }> {
  const cert = c.clientCertificate('reader');
  const url = new URL(c.url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port), ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] },
      () => socket.write(data),
    );
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, ms: Date.now() - started });
    }, opts.waitMs ?? 10_000); // a server that never closes still fails; 10 s leaves a loaded machine room
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, ms: Date.now() - started });
    });
  });
}

/** An HTTP/2 connection as the reader. */
function h2Session(c: TestCluster, opts: http2.ClientSessionOptions = {}): http2.ClientHttp2Session {
  const cert = c.clientCertificate('reader');
  return http2.connect(c.url, { ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ...opts });
}

/** One GET on an HTTP/2 connection. */
function h2Get(session: http2.ClientHttp2Session, path: string, headers: http2.OutgoingHttpHeaders = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ...headers });
    let status = 0;
    let body = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (d: Buffer) => (body += d.toString()));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
    stream.end();
  });
}

function statusOf(text: string): Record<string, unknown> {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('request header sizes (default limit: 1 MiB, as kube-apiserver)', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster();
    await c.req('admin', 'POST', ctbPath, { body: bundle('in-team-a', c.anchorPem, undefined, { metadata: { labels: { team: 'a' } } }) });
  });
  afterAll(async () => {
    await c.close();
  });

  it('serves a 64 KiB label selector in the URL over HTTP/1.1 and HTTP/2', async () => {
    const selector = encodeURIComponent(longSelector(64 * 1024));
    expect(selector.length).toBeGreaterThan(64 * 1024);
    const h1 = await c.req<{ items: unknown[] }>('reader', 'GET', `${ctbPath}?labelSelector=${selector}`);
    expect(h1.status).toBe(200);
    expect(h1.json.items).toHaveLength(1);
    // (undici's HTTP/2 client sends at most 64 KiB of compressed headers: node:http2 is told to send more.)
    const session = h2Session(c, { maxSendHeaderBlockLength: 1024 * 1024 });
    try {
      const h2 = await h2Get(session, `${ctbPath}?labelSelector=${selector}`);
      expect(h2.status).toBe(200);
      expect((JSON.parse(h2.body) as { items: unknown[] }).items).toHaveLength(1);
    } finally {
      session.close();
    }
  });

  it('serves 200 KiB of headers over HTTP/1.1', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 50; i++) headers[`x-padding-${i}`] = 'p'.repeat(4096);
    expect((await c.req('reader', 'GET', ctbPath, { headers })).status).toBe(200);
  });

  it('answers 431 with a Status, then closes, when the request line and headers pass 1 MiB (HTTP/1.1)', async () => {
    const res = await raw(c, `GET ${ctbPath}?labelSelector=${'a'.repeat(1024 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(res.text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(statusOf(res.text)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request Header Fields Too Large: the request line and headers exceed the limit of 1048576 bytes',
      reason: '',
      code: 431,
    });
    expect(res.closed).toBe(true);
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
  });

  it('answers 400 with a Status to malformed HTTP/1.1', async () => {
    const res = await raw(c, 'GARBAGE GARBAGE\r\n\r\n');
    expect(res.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(statusOf(res.text)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(res.closed).toBe(true);
  });
});

describe('request header limit over HTTP/2', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster({ limits: { maxRequestHeaderBytes: 32 * 1024 } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 431 with a Status on the stream and keeps the connection for the next request', async () => {
    const session = h2Session(c);
    try {
      const get = (headers: http2.OutgoingHttpHeaders) => h2Get(session, ctbPath, headers);
      const big = await get({ 'x-padding': 'p'.repeat(40 * 1024) });
      expect(big.status).toBe(431);
      expect(JSON.parse(big.body)).toMatchObject({ kind: 'Status', code: 431, message: 'Request Header Fields Too Large: the request line and headers exceed the limit of 32768 bytes' });
      const small = await get({ 'x-padding': 'p'.repeat(16 * 1024) });
      expect(small.status).toBe(200);
      // kube-apiserver's default of --http2-max-streams-per-connection.
      expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
    } finally {
      session.close();
    }
  });
});

describe('connection timeouts', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster({ limits: { requestHeaderTimeoutMs: 1000, idleTimeoutMs: 1500 } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('closes a connection that dribbles its headers, and one that sends nothing, after the header timeout', async () => {
    const cert = c.clientCertificate('reader');
    const url = new URL(c.url);
    const dribble = new Promise<number>((resolve) => {
      const started = Date.now();
      const socket = connect({ host: url.hostname, port: Number(url.port), ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(`GET ${ctbPath} HTTP/1.1\r\n`);
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('X-Slow: 1\r\n')), 200);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Date.now() - started));
    });
    const silent = raw(c, '', { waitMs: 12_000 });
    const [dribbleMs, silentRes] = await Promise.all([dribble, silent]);
    // Closed by the 1 s header timeout: not before it, and long before Node's own 60 s one (10 s
    // leaves a loaded machine room).
    expect(dribbleMs).toBeGreaterThanOrEqual(900);
    expect(dribbleMs).toBeLessThan(10_000);
    expect(silentRes.closed).toBe(true);
    expect(silentRes.ms).toBeLessThan(10_000);
  });

  it('closes an idle HTTP/2 session after the idle timeout, but not one with a quiet watch open', async () => {
    const idle = h2Session(c);
    const watching = h2Session(c);
    try {
      const started = Date.now();
      const goaway = new Promise<number>((resolve) => idle.once('goaway', () => resolve(Date.now() - started)));
      expect((await h2Get(idle, ctbPath)).status).toBe(200);
      const watch = watching.request({ ':path': `${ctbPath}?watch=true&labelSelector=none` });
      watch.on('data', () => undefined);
      watch.end();
      const idleMs = await goaway;
      expect(idleMs).toBeGreaterThanOrEqual(1400);
      // The 1.5 s idle timeout, with room for a loaded machine.
      expect(idleMs).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(watching.closed).toBe(false);
      expect(watch.closed).toBe(false);
    } finally {
      idle.destroy();
      watching.destroy();
    }
  });
});
