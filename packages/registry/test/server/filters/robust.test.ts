import { TLSSocket, connect } from 'node:tls';
import { bundle, ctbPath, startCluster, type TestCluster } from '../../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

/** Opens a raw TLS connection (HTTP/1.1 only) as the writer, sends `data`, and collects what comes back until close. */
function raw(data: string, holdOpenMs = 0): Promise<{ text: string; closed: boolean }> {
  const cert = c.clientCertificate('writer');
  const url = new URL(c.url);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      socket.write(data);
      if (holdOpenMs) setTimeout(() => socket.destroy(), holdOpenMs);
    });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 10_000); // a server that never closes still fails; 10 s leaves a loaded machine's handshake room
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

describe('robustness', () => {
  it('turns off the Nagle delay on every accepted connection', async () => {
    // The HTTP/2 server with HTTP/1.1 fallback does not do it by itself (node:https does).
    const calls: boolean[] = [];
    const original = TLSSocket.prototype.setNoDelay;
    TLSSocket.prototype.setNoDelay = function (this: TLSSocket & { server?: unknown }, noDelay?: boolean) {
      if (this.server) calls.push(noDelay ?? true);
      return original.call(this, noDelay);
    };
    try {
      const res = await raw(`GET ${ctbPath} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(res.text).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      TLSSocket.prototype.setNoDelay = original;
    }
    expect(calls).toContain(true);
  });

  it('closes connections that send malformed HTTP', async () => {
    const res = await raw('GARBAGE GARBAGE\r\n\r\n');
    expect(res.closed).toBe(true);
    expect((await c.req('reader', 'GET', ctbPath)).status).toBe(200);
  });

  it('survives a client that goes away in the middle of a request body', async () => {
    await raw(`POST ${ctbPath} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"metadata":`, 100);
    expect((await c.req('writer', 'POST', ctbPath, { body: bundle('after-abort', c.anchorPem) })).status).toBe(201);
  });
});
