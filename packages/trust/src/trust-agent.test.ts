import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { canonicalTrustBundle, createCertificateAuthority, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import { eventually } from '../test/scripted-server.js';
import { TrustAgent } from './trust-agent.js';
import { trustedSecureContext } from './trusted-secure-context.js';

let caOld: PemKeyPair;
let caNew: PemKeyPair;
let leafOld: PemKeyPair;
let server: Server;
let url: string;
const sockets = new Set<Socket>();
let delayMs = 0;
let received = 0;

beforeAll(async () => {
  [caOld, caNew] = await Promise.all([createCertificateAuthority({ commonName: 'agent-old-ca' }), createCertificateAuthority({ commonName: 'agent-new-ca' })]);
  leafOld = await issueServingCertificate(caOld, { commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
  server = createServer({ cert: leafOld.certPem, key: leafOld.keyPem }, (_req, res) => {
    received++;
    setTimeout(() => res.end('hello'), delayMs);
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const anchorsOf = (...cas: PemKeyPair[]) => canonicalTrustBundle(cas.map((c) => c.certPem));
const get = async (agent: TrustAgent) => (await (await request(url, { dispatcher: agent })).body.text());

describe('TrustAgent', () => {
  it('refuses a server its anchors do not cover, and trusts it once the anchors are updated', async () => {
    const agent = new TrustAgent({ anchors: anchorsOf(caNew) });
    try {
      await expect(get(agent)).rejects.toMatchObject({ code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER_CERT/) });
      agent.update(anchorsOf(caNew, caOld));
      expect(await get(agent)).toBe('hello');
      expect(agent.anchorsDigest).toBe(anchorsOf(caNew, caOld).digest);
    } finally {
      await agent.close();
    }
  });

  it('closes idle pooled connections when the anchors change, and keeps them when they do not', async () => {
    // The server's end of the earlier test's connection closes after that agent's close resolves.
    await eventually(() => sockets.size === 0);
    const agent = new TrustAgent({ anchors: anchorsOf(caOld) });
    try {
      expect(await get(agent)).toBe('hello');
      expect(sockets.size).toBe(1);
      const [pooled] = sockets;
      agent.update(anchorsOf(caOld));
      await new Promise((r) => setTimeout(r, 100));
      expect(sockets.has(pooled)).toBe(true);
      agent.update(anchorsOf(caOld, caNew));
      await new Promise<void>((resolve) => (pooled.destroyed ? resolve() : pooled.once('close', () => resolve())));
      expect(await get(agent)).toBe('hello');
    } finally {
      await agent.close();
    }
  });

  it('lets a request in flight finish on its connection while the anchors change', async () => {
    const agent = new TrustAgent({ anchors: anchorsOf(caOld) });
    delayMs = 300;
    try {
      const before = received;
      const pending = get(agent);
      // Until the server has the request, not a fixed sleep: on a loaded machine the TLS handshake
      // can outlast one, and a connection made after the update would refuse this server.
      await eventually(() => received > before);
      agent.update(anchorsOf(caNew));
      expect(await pending).toBe('hello');
      // New connections use the new anchors, which do not cover this server.
      await expect(get(agent)).rejects.toBeDefined();
    } finally {
      delayMs = 0;
      await agent.close();
    }
  });
});

describe('trustedSecureContext', () => {
  const fetchWith = (secureContext: ReturnType<typeof trustedSecureContext>) =>
    new Promise<string>((resolve, reject) => {
      // node:https passes secureContext on to tls.connect (its RequestOptions type does not list it).
      const req = httpsRequest(url, { agent: false, ...({ secureContext } as object) }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });

  it('trusts exactly the anchors given, not Node\'s built-in roots, and nothing when empty', async () => {
    expect(await fetchWith(trustedSecureContext(anchorsOf(caOld)))).toBe('hello');
    expect(await fetchWith(trustedSecureContext(caOld.certPem))).toBe('hello');
    await expect(fetchWith(trustedSecureContext(anchorsOf(caNew)))).rejects.toBeDefined();
    await expect(fetchWith(trustedSecureContext(''))).rejects.toBeDefined();
  });
});
