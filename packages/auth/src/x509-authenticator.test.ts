import { X509Certificate } from 'node:crypto';
import {
  createCertificate,
  createCertificateAuthority,
  extKeyUsageOid,
  issueClientCertificate,
  type PemKeyPair,
} from '@plat/x509';
import { call, startAuthServer, type AuthServer } from '../test/tls-fixture.js';
import { createUnionAuthenticator } from './union-authenticator.js';
import { createX509Authenticator } from './x509-authenticator.js';

/** The client CA, another CA, and a TLS server with the x509 authenticator of the first, reading certificates as `peer`. */
async function x509Server(peer: 'legacy' | 'x509'): Promise<{ clientCA: PemKeyPair; otherCA: PemKeyPair; server: AuthServer }> {
  const clientCA = await createCertificateAuthority({ commonName: 'client-ca' });
  const otherCA = await createCertificateAuthority({ commonName: 'other-ca' });
  const server = await startAuthServer(createX509Authenticator({ clientCA: clientCA.certPem }), clientCA.certPem, peer);
  return { clientCA, otherCA, server };
}

// The first tests run twice: with the legacy certificate objects (getPeerCertificate(true)) and with
// node:crypto's X509Certificate and its issuer chain, as @plat/server's authentication filter reads
// a connection's certificate (getPeerX509Certificate).
describe.each([
  ['legacy certificate objects', 'legacy'],
  ['node:crypto certificates (as @plat/server reads them)', 'x509'],
] as const)('x509 client-certificate authenticator over real TLS, %s', (_form, peer) => {
  let clientCA: PemKeyPair;
  let otherCA: PemKeyPair;
  let server: AuthServer;

  beforeAll(async () => {
    ({ clientCA, otherCA, server } = await x509Server(peer));
  });
  afterAll(() => server.close());

  it('maps CN to the username and each O to a group', async () => {
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice', organizations: ['devs', 'ops'] });
    const res = await call(server, { cert: alice.certPem, key: alice.keyPem });
    expect(res.status).toBe(200);
    expect(res.body?.user).toEqual({ username: 'alice', groups: ['devs', 'ops'] });
  });

  it('answers null (no credential) when the client sends no certificate', async () => {
    const res = await call(server);
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
  });

  it('rejects a certificate from another CA with Kubernetes wording, naming SN, SKID and AKID', async () => {
    const mallory = await issueClientCertificate(otherCA, { commonName: 'mallory', organizations: ['system:masters'] });
    const res = await call(server, { cert: mallory.certPem, key: mallory.keyPem });
    expect(res.status).toBe(401);
    const serial = BigInt(`0x${new X509Certificate(mallory.certPem).serialNumber}`).toString(10);
    expect(res.body?.error).toMatch(
      new RegExp(`^verifying certificate SN=${serial}, SKID=([0-9A-F]{2}:)+[0-9A-F]{2}, AKID=([0-9A-F]{2}:)+[0-9A-F]{2} failed: x509: certificate signed by unknown authority$`),
    );
  });

  it('rejects an expired certificate', async () => {
    const old = await createCertificate(
      {
        commonName: 'old',
        notBefore: new Date(Date.now() - 3 * 86400_000),
        validityDays: 1,
        extKeyUsage: [extKeyUsageOid.clientAuth],
      },
      clientCA,
    );
    const res = await call(server, { cert: old.certPem, key: old.keyPem });
    expect(res.status).toBe(401);
    expect(res.body?.error).toMatch(/x509: certificate has expired or is not yet valid: current time \S+Z is after \S+Z$/);
  });

  it('verifies a chain through the intermediate the client sends, and not the same leaf sent without it', async () => {
    const intermediate = await createCertificate(
      { commonName: 'intermediate', basicConstraints: 'ca', keyUsage: ['digitalSignature', 'keyCertSign'] },
      clientCA,
    );
    const bob = await issueClientCertificate(intermediate, { commonName: 'bob', organizations: ['team'] });
    const withChain = await call(server, { cert: bob.certPem + intermediate.certPem, key: bob.keyPem });
    expect(withChain.status).toBe(200);
    expect(withChain.body?.user).toEqual({ username: 'bob', groups: ['team'] });
    // The verified chain is remembered by the fingerprints of every certificate presented: the
    // leaf alone is another chain, verified on its own (as kube verifies each request's chain).
    const leafOnly = await call(server, { cert: bob.certPem, key: bob.keyPem });
    expect(leafOnly.status).toBe(401);
    expect(leafOnly.body?.error).toMatch(/x509: certificate signed by unknown authority$/);
    expect((await call(server, { cert: bob.certPem + intermediate.certPem, key: bob.keyPem })).status).toBe(200);
  });
});

describe('x509 client-certificate authenticator over real TLS', () => {
  let clientCA: PemKeyPair;
  let otherCA: PemKeyPair;
  let server: AuthServer;

  beforeAll(async () => {
    ({ clientCA, otherCA, server } = await x509Server('legacy'));
  });
  afterAll(() => server.close());

  it('rejects a certificate that is only valid for server authentication', async () => {
    const serverOnly = await createCertificate(
      { commonName: 'svc', keyUsage: ['digitalSignature'], extKeyUsage: [extKeyUsageOid.serverAuth] },
      clientCA,
    );
    // OpenSSL itself refuses such a client certificate; build the request without it and check
    // the authenticator directly with the peer certificate the server would see.
    const authenticator = createX509Authenticator({ clientCA: clientCA.certPem });
    const peer = new X509Certificate(serverOnly.certPem).toLegacyObject();
    await expect(
      authenticator.authenticate({ method: 'GET', path: '/', headers: {}, tls: { authorized: false, peerCertificate: peer } }),
    ).rejects.toThrow(/x509: certificate specifies an incompatible key usage$/);
  });

  it('accepts a certificate without extended key usage (any usage)', async () => {
    const plain = await createCertificate({ commonName: 'plain', organizations: ['g'] }, clientCA);
    const res = await call(server, { cert: plain.certPem, key: plain.keyPem });
    expect(res.body?.user).toEqual({ username: 'plain', groups: ['g'] });
  });

  it('identifies nobody when the certificate has no common name', async () => {
    const noCN = await issueClientCertificate(clientCA, { commonName: '', organizations: ['devs'] });
    const res = await call(server, { cert: noCN.certPem, key: noCN.keyPem });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
  });

  it('refuses a chain through an issuer that is not a CA', async () => {
    const notCA = await createCertificate({ commonName: 'not-a-ca', basicConstraints: 'leaf', keyUsage: ['digitalSignature', 'keyCertSign'] }, clientCA);
    const eve = await issueClientCertificate(notCA, { commonName: 'eve' });
    const authenticator = createX509Authenticator({ clientCA: clientCA.certPem });
    const leaf = new X509Certificate(eve.certPem).toLegacyObject() as ReturnType<X509Certificate['toLegacyObject']> & {
      issuerCertificate?: unknown;
    };
    leaf.issuerCertificate = new X509Certificate(notCA.certPem).toLegacyObject();
    await expect(
      authenticator.authenticate({ method: 'GET', path: '/', headers: {}, tls: { authorized: false, peerCertificate: leaf } }),
    ).rejects.toThrow(/failed: x509: certificate (is not authorized to sign other certificates|signed by unknown authority)$/);
  });

  it('authenticates nobody when the client CA bundle is empty', async () => {
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice' });
    const empty = createX509Authenticator({ clientCA: '' });
    const peer = new X509Certificate(alice.certPem).toLegacyObject();
    expect(await empty.authenticate({ method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerCertificate: peer } })).toBeNull();
  });

  it('follows a swapped CA bundle when given a provider function', async () => {
    let current = [new X509Certificate(otherCA.certPem)];
    const dynamic = createX509Authenticator({ clientCA: () => current });
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice' });
    const peer = new X509Certificate(alice.certPem).toLegacyObject();
    const req = { method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerCertificate: peer } };
    await expect(dynamic.authenticate(req)).rejects.toThrow(/unknown authority/);
    current = [new X509Certificate(clientCA.certPem)];
    expect((await dynamic.authenticate(req))?.user.username).toBe('alice');
  });

  it('remembers a verified chain until the earliest expiry in it, and answers a user no caller can change', async () => {
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice', organizations: ['devs'], validityDays: 2 });
    let clock = new Date();
    const authenticator = createX509Authenticator({ clientCA: clientCA.certPem, now: () => clock });
    const peer = new X509Certificate(alice.certPem).toLegacyObject();
    const req = { method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerCertificate: peer } };
    // Before the chain is verified, only `authenticate` knows the answer.
    expect(authenticator.authenticateKnown!(req)).toBeUndefined();
    const first = await authenticator.authenticate(req);
    // One request's consumer cannot change what the next request of the client is.
    expect(() => first!.user.groups.push('system:masters')).toThrow(TypeError);
    expect(() => {
      first!.user.username = 'admin';
    }).toThrow(TypeError);
    expect((await authenticator.authenticate(req))?.user).toEqual({ username: 'alice', groups: ['devs'] });
    expect(authenticator.authenticateKnown!(req)).toBe(first);
    // Through the union, which adds system:authenticated once for the shared user.
    const union = createUnionAuthenticator([authenticator]);
    const viaUnion = union.authenticateKnown!(req);
    expect(viaUnion?.user).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
    expect(await union.authenticate(req)).toBe(viaUnion);
    expect(() => viaUnion!.user.groups.push('system:masters')).toThrow(TypeError);
    expect(first!.user.groups).toEqual(['devs']);
    clock = new Date(Date.now() + 3 * 86400_000);
    expect(authenticator.authenticateKnown!(req)).toBeUndefined();
    await expect(authenticator.authenticate(req)).rejects.toThrow(/certificate has expired or is not yet valid/);
  });

  it('answers a connection\'s certificate object from memory only under the CA bundle that verified it', async () => {
    const trusted = [new X509Certificate(clientCA.certPem)];
    let current = trusted;
    const authenticator = createX509Authenticator({ clientCA: () => current });
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice' });
    // One object for every request, as the server hands a connection's certificate.
    const peer = new X509Certificate(alice.certPem).toLegacyObject();
    const req = { method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerCertificate: peer } };
    const first = await authenticator.authenticate(req);
    expect(authenticator.authenticateKnown!(req)).toBe(first);
    current = [new X509Certificate(otherCA.certPem)];
    expect(authenticator.authenticateKnown!(req)).toBeUndefined();
    await expect(authenticator.authenticate(req)).rejects.toThrow(/unknown authority/);
    current = trusted;
    expect(authenticator.authenticateKnown!(req)).toBe(first);
  });

  it('verifies every time when the cache is off', async () => {
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice' });
    const authenticator = createX509Authenticator({ clientCA: clientCA.certPem, cacheSize: 0 });
    const peer = new X509Certificate(alice.certPem).toLegacyObject();
    const req = { method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerCertificate: peer } };
    for (let i = 0; i < 3; i++) expect((await authenticator.authenticate(req))?.user.username).toBe('alice');
  });

  it('remembers a node:crypto certificate until its expiry and only under the CA bundle that verified it', async () => {
    const alice = await issueClientCertificate(clientCA, { commonName: 'alice', validityDays: 2 });
    const trusted = [new X509Certificate(clientCA.certPem)];
    let current = trusted;
    let clock = new Date();
    const authenticator = createX509Authenticator({ clientCA: () => current, now: () => clock });
    const req = { method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerX509Certificate: new X509Certificate(alice.certPem) } };
    expect(authenticator.authenticateKnown!(req)).toBeUndefined();
    const first = await authenticator.authenticate(req);
    expect(first?.user.username).toBe('alice');
    expect(authenticator.authenticateKnown!(req)).toBe(first);
    // Another object of the same certificate (a new connection) is known by its fingerprint.
    const again = { ...req, tls: { authorized: true, peerX509Certificate: new X509Certificate(alice.certPem) } };
    expect(authenticator.authenticateKnown!(again)).toBe(first);
    current = [new X509Certificate(otherCA.certPem)];
    expect(authenticator.authenticateKnown!(req)).toBeUndefined();
    await expect(authenticator.authenticate(again)).rejects.toThrow(/unknown authority/);
    current = trusted;
    expect(authenticator.authenticateKnown!(req)).toBe(first);
    clock = new Date(Date.now() + 3 * 86400_000);
    expect(authenticator.authenticateKnown!(again)).toBeUndefined();
    await expect(authenticator.authenticate(again)).rejects.toThrow(/certificate has expired or is not yet valid/);
  });

  it('keeps at most cacheSize chains', async () => {
    const authenticator = createX509Authenticator({ clientCA: clientCA.certPem, cacheSize: 2 });
    const certs = await Promise.all(['a', 'b', 'c'].map((cn) => issueClientCertificate(clientCA, { commonName: cn })));
    const reqs = certs.map((c) => ({ method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerX509Certificate: new X509Certificate(c.certPem) } }));
    for (const r of reqs) await authenticator.authenticate(r);
    // New objects (new connections) of the same certificates: only the two latest are remembered.
    const fresh = certs.map((c) => ({ method: 'GET', path: '/', headers: {}, tls: { authorized: true, peerX509Certificate: new X509Certificate(c.certPem) } }));
    expect(authenticator.authenticateKnown!(fresh[0]!)).toBeUndefined();
    expect(authenticator.authenticateKnown!(fresh[1]!)?.user.username).toBe('b');
    expect(authenticator.authenticateKnown!(fresh[2]!)?.user.username).toBe('c');
  });
});
