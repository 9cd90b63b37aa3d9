import { createCertificateAuthority, issueServingCertificate, readBundleCertificates, type PemKeyPair } from '@plat/x509';
import { Agent, request } from 'undici';
import { eventually, openWatch, sendList, startScriptedServer, threeCas, type Bundle, type ScriptedServer } from '../test/scripted-server.js';
import { startSpiffeFederationServer, type SpiffeFederationServer } from './spiffe-federation-server.js';

let server: ScriptedServer;
let a: PemKeyPair, b: PemKeyPair;
let endpointCa: PemKeyPair, serving: PemKeyPair;
const one = (pem: string, rv: string): Bundle => ({ name: 'roots', resourceVersion: rv, pem });

beforeAll(async () => {
  [server, [a, b], endpointCa] = await Promise.all([startScriptedServer(), threeCas(), createCertificateAuthority({ commonName: 'bundle-endpoint-ca' })]);
  serving = await issueServingCertificate(endpointCa, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
});
afterAll(() => server.close());
beforeEach(() => server.nextTest());

describe('startSpiffeFederationServer (https_web)', () => {
  it('serves the bundle as application/json with ETag and no-cache, and a client polling gets the new sequence after a change', async () => {
    let stream: ReturnType<typeof openWatch> | undefined;
    server.handler = (_req, res, url) => (url.searchParams.get('watch') !== 'true' ? sendList(res, '10', [one(a.certPem, '10')]) : void (stream = openWatch(res)));
    const controller = new AbortController();
    const endpoint: SpiffeFederationServer = await startSpiffeFederationServer(server.client(), { name: 'roots' }, {
      port: 0,
      cert: serving.certPem,
      key: serving.keyPem,
      path: '/bundle.json',
      refreshHintSeconds: 60,
      signal: controller.signal,
    });
    // A federation client: trusts the endpoint's CA (Web PKI in production), asks no client certificate.
    const dispatcher = new Agent({ connect: { ca: endpointCa.certPem } });
    const get = async (headers: Record<string, string> = {}, path = '/bundle.json', method: 'GET' | 'POST' | 'HEAD' = 'GET') => {
      const r = await request(new URL(path, endpoint.url).toString(), { dispatcher, headers, method });
      return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
    };
    try {
      const r1 = await get();
      expect(r1.status).toBe(200);
      expect(r1.headers['content-type']).toBe('application/json');
      expect(r1.headers['cache-control']).toBe('no-cache');
      expect(r1.headers['etag']).toMatch(/^"[0-9a-f]{32}"$/);
      expect(new Date(r1.headers['last-modified'] as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
      const doc1 = JSON.parse(r1.body) as { keys: { use: string; x5c: string[] }[]; spiffe_sequence: number; spiffe_refresh_hint: number };
      expect(doc1.spiffe_refresh_hint).toBe(60);
      expect(doc1.keys.map((k) => k.x5c[0])).toEqual(readBundleCertificates(a.certPem).map((c) => Buffer.from(c.der).toString('base64')));
      expect((await get({ 'if-none-match': r1.headers['etag'] as string })).status).toBe(304);
      expect((await get({}, '/other')).status).toBe(404);
      const post = await get({}, '/bundle.json', 'POST');
      expect(post.status).toBe(405);
      expect(post.headers['allow']).toBe('GET, HEAD');

      stream!.bundle('MODIFIED', one(a.certPem + b.certPem, '11'));
      await eventually(() => endpoint.current().anchors.anchors.length === 2);
      const r2 = await get({ 'if-none-match': r1.headers['etag'] as string });
      expect(r2.status).toBe(200);
      const doc2 = JSON.parse(r2.body) as typeof doc1;
      expect(doc2.keys).toHaveLength(2);
      expect(doc2.spiffe_sequence).toBeGreaterThan(doc1.spiffe_sequence);
      // A change that leaves the anchors as they are (labels, resourceVersion) changes nothing served.
      stream!.bundle('MODIFIED', one(b.certPem + a.certPem, '12'));
      await new Promise((r) => setTimeout(r, 100));
      expect(JSON.parse((await get()).body)).toEqual(doc2);
    } finally {
      controller.abort();
      await endpoint.done;
      await dispatcher.close();
    }
  });
});
