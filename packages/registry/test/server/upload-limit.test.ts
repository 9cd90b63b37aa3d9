// A client still uploading a body over the limit reads the 413 Status (Go's server, and so
// kube-apiserver, half-closes and lingers: net/http/server.go closeWriteAndWait), over real
// HTTPS sockets with the client in its own process.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import * as tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ctbPath, startCluster, type TestCluster } from '../cluster.js';
import { unreadBodyLingerMs } from '@plat/server';

const client = fileURLToPath(new URL('../uploading-client.mjs', import.meta.url));

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c.close();
});

interface Outcome {
  status?: number;
  body?: string;
  connection?: string;
  rstCode?: number;
  sentWhenClosed?: number;
  error?: string;
}

async function upload(protocol: 'h1' | 'h2', mib: number, declared: boolean, whole: boolean): Promise<Outcome> {
  const cert = c.clientCertificate('writer');
  const env = {
    ...process.env,
    URL: `${c.url}${ctbPath}`,
    CA: c.ca.certPem,
    CERT: cert.certPem,
    KEY: cert.keyPem,
    SIZE: String(mib * 1024 * 1024),
    DECLARED: declared ? '1' : '0',
    PROTOCOL: protocol,
    WHOLE: whole ? '1' : '0',
  };
  const { stdout } = await promisify(execFile)(process.execPath, [client], { env, timeout: 20_000 });
  return JSON.parse(stdout) as Outcome;
}

const tooLarge = { kind: 'Status', code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' };
const cases = [4, 50].flatMap((mib) => [true, false].map((declared) => [mib, declared] as const));

describe('a client still uploading a body over the limit', () => {
  it.each(cases)('reads the 413 Status over HTTP/1.1 (%i MiB, Content-Length declared: %s), and the connection closes', async (mib, declared) => {
    // Several rounds, the body in one write or in chunks: a reset loses the answer only some of the time.
    for (let round = 0; round < 2; round++) {
      const out = await upload('h1', mib, declared, round % 2 === 0);
      expect(out.error).toBeUndefined();
      expect(out.status).toBe(413);
      expect(out.connection).toBe('close');
      expect(JSON.parse(out.body!)).toMatchObject(tooLarge);
    }
  }, 60_000);

  it.each(cases)('reads the 413 Status over HTTP/2 (%i MiB, Content-Length declared: %s), then RST_STREAM NO_ERROR', async (mib, declared) => {
    // In chunks: a single 50 MiB write over HTTP/2 ends in ENHANCE_YOUR_CALM against Node's own
    // server as well, with or without an answer.
    const out = await upload('h2', mib, declared, false);
    expect(out.error).toBeUndefined();
    expect(out.status).toBe(413);
    expect(JSON.parse(out.body!)).toMatchObject(tooLarge);
    expect(out.rstCode).toBe(0);
  }, 60_000);

  it('does not read the rest of the body: after the answer the connection lingers half-closed, then closes with most of 50 MiB unsent', async () => {
    // A raw TLS client that keeps its side open and keeps uploading: the connection ends only when
    // the server closes it, so the time from the answer to the close is the server's linger (an
    // https client closes on its own once its queued writes flush, which may come sooner).
    const cert = c.clientCertificate('writer');
    const { hostname, port } = new URL(c.url);
    // allowHalfOpen: the server's FIN does not end the client's side (tls.connect passes it on to
    // its TLSSocket; @types/node leaves it out of ConnectionOptions).
    const options: tls.ConnectionOptions & { allowHalfOpen: boolean } = { host: hostname, port: Number(port), ca: c.ca.certPem, cert: cert.certPem, key: cert.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'], allowHalfOpen: true };
    const socket = tls.connect(options);
    socket.on('error', () => undefined); // EPIPE or ECONNRESET once the server is gone
    await once(socket, 'secureConnect');
    const size = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    let answer = '';
    let answeredAt: number | undefined;
    let closed = false;
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      answeredAt ??= performance.now();
    });
    socket.write(`POST ${ctbPath} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const pump = (): void => {
      while (!closed && sent < size) {
        sent += chunk.length;
        if (!socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]))) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    // (events.once would reject at the EPIPE that comes first.)
    const closing = new Promise((resolve) => socket.on('close', resolve));
    pump();
    await closing;
    closed = true;
    const closedAt = performance.now();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    // The server stops at the limit; what the client got in beyond it sits in socket buffers.
    expect(sent).toBeLessThan(20 * 1024 * 1024);
    // The linger's timer starts when the answer is flushed, a little before the client reads it.
    expect(closedAt - answeredAt!).toBeGreaterThanOrEqual(unreadBodyLingerMs * 0.8);
    const alive = await c.req('reader', 'GET', ctbPath);
    expect(alive.status).toBe(200);
  }, 30_000);
});
