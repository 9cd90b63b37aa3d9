// Requests whose checks the caches answer at once (a client certificate seen before, the built-in
// rules: filters/authentication.ts, filters/authorization.ts) and whose answer needs no storage
// (`/version`) are answered within Node's 'request' event, before Node marks the body-less request
// complete. The answers to pipelined HTTP/1.1 requests must still all arrive on the open
// connection (unread-body.ts closes a connection only after a request that announced a body).
import { X509Certificate } from 'node:crypto';
import * as tls from 'node:tls';
import { createBuiltinAuthorizer, createUnionAuthenticator, createX509Authenticator } from '@plat/auth';
import { ctbPath, startCluster, type TestCluster } from '../cluster.js';

let c: TestCluster;
let roots: X509Certificate[] = [];
beforeAll(async () => {
  c = await startCluster({
    authenticator: createUnionAuthenticator([createX509Authenticator({ clientCA: () => roots })]),
    authorizer: createBuiltinAuthorizer(),
  });
  roots = [new X509Certificate(c.ca.certPem)];
});
afterAll(async () => {
  await c.close();
});

it('answers 16 pipelined GETs, some answered at once, on one HTTP/1.1 connection and keeps it open', async () => {
  const created = await c.req('admin', 'POST', ctbPath, {
    body: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name: 'piped' }, spec: { trustBundle: c.anchorPem } },
  });
  expect(created.status).toBe(201);
  const admin = c.clientCertificate('admin');
  const socket = tls.connect({ host: '127.0.0.1', port: Number(new URL(c.url).port), ca: c.ca.certPem, cert: admin.certPem, key: admin.keyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
  await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`;
  const request = get('/version') + get(`${ctbPath}/piped`);
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  // The first round makes the chain and the rules known; in the second, each `/version` is answered at once.
  for (const round of [1, 8]) {
    received = '';
    socket.write(request.repeat(round));
    const deadline = Date.now() + 10_000;
    while ((received.match(/^HTTP\/1\.1 /gm) ?? []).length < 2 * round && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect((received.match(/^HTTP\/1\.1 \d+/gm) ?? []).map((l) => l.slice(9))).toEqual(Array(2 * round).fill('200'));
    expect(received).not.toMatch(/^connection: close/im);
  }
  expect(closed).toBe(false);
  socket.destroy();
});
