import { connect } from 'node:tls';
import { request } from 'undici';
import { bundle, ctbPath, eventually, startCluster, type TestCluster } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
  expect((await c.req('admin', 'POST', ctbPath, { body: bundle('watched', c.anchorPem) })).status).toBe(201);
});
afterAll(async () => {
  await c.close();
});

/** Opens a watch, reads its first event, and reports whether the stream is still open `ms` later. */
async function openFor(query: string, ms: number): Promise<{ status: number; first: string; openAfter: boolean }> {
  const res = await request(`${c.url}${ctbPath}?${query}`, { dispatcher: c.agent('reader') });
  let ended = false;
  let text = '';
  const reading = (async () => {
    try {
      for await (const chunk of res.body) text += chunk.toString();
    } catch {
      // destroyed below
    }
    ended = true;
  })();
  const deadline = Date.now() + 15_000;
  while (!text.includes('\n') && !ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, ms));
  const openAfter = !ended;
  res.body.destroy();
  await reading;
  return { status: res.statusCode, first: text.split('\n')[0] ?? '', openAfter };
}

describe('watch query parameters', () => {
  it('serves watch=maybe as a watch, as Kubernetes (only 0 and false are false)', async () => {
    const w = await openFor('watch=maybe', 300);
    expect(w.status).toBe(200);
    expect(JSON.parse(w.first)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'watched' } } });
    expect(w.openAfter).toBe(true);
    const list = await c.req('reader', 'GET', `${ctbPath}?watch=FALSE`);
    expect(list.json['kind']).toBe('ClusterTrustBundleList');
  });

  it('keeps a watch open for a timeoutSeconds beyond what one Node timer holds (2,147,484 s and more)', async () => {
    for (const seconds of ['2147484', '9007199254740']) {
      const w = await openFor(`watch=true&timeoutSeconds=${seconds}`, 500);
      expect(w.status).toBe(200);
      expect(w.openAfter).toBe(true);
    }
  });
});

describe('a watcher that stops reading', () => {
  it('is cut when its timeoutSeconds passes, instead of holding the connection for ever', async () => {
    const padding = 'p'.repeat(100_000);
    for (let i = 0; i < 40; i++) {
      const res = await c.req('admin', 'POST', ctbPath, { body: bundle(`heavy-${i}`, c.anchorPem, undefined, { metadata: { annotations: { padding } } }) });
      expect(res.status).toBe(201);
    }
    const watchers = async () => Number(/^apiserver_registered_watchers\{[^}]*\} (\d+)$/m.exec((await c.req('admin', 'GET', '/metrics')).text)?.[1] ?? 0);
    // Watches of the tests above end as their clients go; their count must not be taken for this one's.
    await eventually(async () => (await watchers()) === 0);
    const cert = c.clientCertificate('reader');
    const url = new URL(c.url);
    // About 4 MB of initial events to a client that reads none of them: the server is held in backpressure.
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      socket.write(`GET ${ctbPath}?watch=true&timeoutSeconds=1 HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    });
    socket.pause();
    socket.on('error', () => undefined);
    try {
      // Polled rather than fixed sleeps: registration, and the cut 1 s later, come later on a loaded
      // machine. A server that never cuts the watch still fails (the count stays 1).
      await eventually(async () => (await watchers()) === 1);
      await eventually(async () => (await watchers()) === 0);
    } finally {
      socket.destroy();
    }
  });
});
