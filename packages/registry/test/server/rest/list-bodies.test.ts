import http2 from 'node:http2';
import { MemoryStorage, WatchCache } from '@plat/storage';
import { Agent, request } from 'undici';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

// LIST bodies above 64 KiB are written into buffers the server uses again once a response has
// finished (packages/server/src/rest/list-buffers.ts): concurrent LISTs of different selections,
// over HTTP/1.1 and HTTP/2, must each get exactly their own bytes.
let c: TestCluster;
let cache: WatchCache;
let h2: Agent;
const selectors = ['', 'team=a', 'team=b', 'team in (a,b),tier=gold'];
const expected = new Map<string, string>();

beforeAll(async () => {
  cache = await WatchCache.open(new MemoryStorage());
  c = await startCluster({ storage: cache });
  for (let i = 0; i < 150; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, j) => {
        const n = i + j;
        const labels = { team: n % 2 ? 'a' : 'b', ...(n % 3 ? {} : { tier: 'gold' }) };
        const res = await c.req('admin', 'POST', ctbPath, { body: bundle(`bundle-${String(n).padStart(3, '0')}`, c.anchorPem, undefined, { metadata: { labels } }) });
        expect(res.status).toBe(201);
      }),
    );
  }
  for (const s of selectors) expected.set(s, (await c.req('admin', 'GET', `${ctbPath}?labelSelector=${encodeURIComponent(s)}`)).text);
  const admin = c.clientCertificate('admin');
  h2 = new Agent({ allowH2: true, connect: { ca: c.ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' } });
}, 60_000);

afterAll(async () => {
  await h2?.close();
  await c?.close();
  await cache?.close();
});

it('serves bodies large enough to use kept buffers', () => {
  for (const s of selectors.slice(0, 3)) expect(Buffer.byteLength(expected.get(s)!)).toBeGreaterThan(64 * 1024);
  expect(JSON.parse(expected.get('team=a')!).items).toHaveLength(75);
});

it('answers each of many concurrent LISTs of different selections with its own bytes, over HTTP/1.1 and HTTP/2', async () => {
  const one = async (i: number) => {
    const s = selectors[i % selectors.length]!;
    const path = `${ctbPath}?labelSelector=${encodeURIComponent(s)}`;
    const text =
      i % 2 ? (await c.req('admin', 'GET', path)).text : await (await request(`${c.url}${path}`, { dispatcher: h2, headers: { accept: 'application/json' } })).body.text();
    return { s, text };
  };
  for (let round = 0; round < 3; round++) {
    const got = await Promise.all(Array.from({ length: 24 }, (_, i) => one(i + round)));
    for (const { s, text } of got) expect(text === expected.get(s)).toBe(true);
  }
}, 60_000);

it('keeps a body whose reader holds it back (HTTP/2 flow control) while other LISTs run', async () => {
  const admin = c.clientCertificate('admin');
  const session = http2.connect(c.url, { ca: c.ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost' });
  try {
    const path = `${ctbPath}?labelSelector=${encodeURIComponent('team=a')}`;
    const stream = session.request({ ':path': path, accept: 'application/json' });
    const chunks: Buffer[] = [];
    // Read the first chunk, then stop: the stream's window closes and the server holds the rest.
    await new Promise<void>((resolve) => stream.once('data', (d: Buffer) => (chunks.push(d), stream.pause(), resolve())));
    for (let i = 0; i < 8; i++) {
      const others = await Promise.all(selectors.map(async (s) => ({ s, text: (await c.req('admin', 'GET', `${ctbPath}?labelSelector=${encodeURIComponent(s)}`)).text })));
      for (const { s, text } of others) expect(text === expected.get(s)).toBe(true);
    }
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.resume();
    await new Promise((resolve) => stream.once('end', resolve));
    expect(Buffer.concat(chunks).toString('utf8') === expected.get('team=a')).toBe(true);
  } finally {
    session.close();
  }
}, 60_000);
