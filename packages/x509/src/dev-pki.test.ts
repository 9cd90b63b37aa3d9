import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from './dev-pki.js';
import type { PemKeyPair } from './dev-pki.js';
import { validateTrustBundle } from './trust-bundle.js';

const execFileAsync = promisify(execFile);

let ca: PemKeyPair;
let otherCa: PemKeyPair;
let serving: PemKeyPair;
let client: PemKeyPair;
let server: https.Server;
let port: number;

beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'dev-pki-test-ca' });
  otherCa = await createCertificateAuthority({ commonName: 'other-ca' });
  serving = await issueServingCertificate(ca, { commonName: 'apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  client = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['system:masters', 'devs'] });
  server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('content-type', 'application/json');
      if (req.url === '/version') {
        res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0-dev-pki-test', platform: 'linux/amd64' }));
        return;
      }
      res.end(JSON.stringify({ cn: peer.subject?.CN, o: peer.subject?.O }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function get(options: https.RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/whoami', timeout: 10_000, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

describe('dev PKI', () => {
  it('makes a CA that is a valid trust anchor for ClusterTrustBundle', () => {
    expect(validateTrustBundle(ca.certPem)).toEqual([]);
    const native = new X509Certificate(ca.certPem);
    expect(native.ca).toBe(true);
    expect(native.verify(native.publicKey)).toBe(true);
  });

  it('signs leaves with the CA key and writes PKCS#8 keys that match the certificates', () => {
    const caCert = new X509Certificate(ca.certPem);
    for (const pair of [serving, client]) {
      const cert = new X509Certificate(pair.certPem);
      expect(cert.verify(caCert.publicKey)).toBe(true);
      expect(cert.checkIssued(caCert)).toBe(true);
      expect(pair.keyPem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(pair.keyPem))).toBe(true);
    }
  });

  it('completes a mutual TLS handshake with node:https, the client identified by CN and O', async () => {
    const body = await get({ ca: ca.certPem, cert: client.certPem, key: client.keyPem });
    expect(JSON.parse(body)).toEqual({ cn: 'alice', o: ['system:masters', 'devs'] });
  });

  it('serves a certificate valid for its DNS SAN', async () => {
    const body = await get({ ca: ca.certPem, cert: client.certPem, key: client.keyPem, servername: 'localhost' });
    expect(JSON.parse(body).cn).toBe('alice');
  });

  it('is rejected for a host name outside its SANs', async () => {
    await expect(get({ ca: ca.certPem, cert: client.certPem, key: client.keyPem, servername: 'elsewhere.example' })).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('is not trusted by a client that trusts another CA', async () => {
    await expect(get({ ca: otherCa.certPem, cert: client.certPem, key: client.keyPem })).rejects.toMatchObject({
      // The server sends its CA along with the leaf, so OpenSSL reports the untrusted root.
      code: expect.stringMatching(/^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/),
    });
  });

  it('has the server refuse a client certificate from another CA', async () => {
    const stranger = await issueClientCertificate(otherCa, { commonName: 'mallory' });
    await expect(get({ ca: ca.certPem, cert: stranger.certPem, key: stranger.keyPem })).rejects.toThrow();
  });

  it('has the server refuse a serving certificate used as a client certificate (no clientAuth EKU)', async () => {
    await expect(get({ ca: ca.certPem, cert: serving.certPem, key: serving.keyPem })).rejects.toThrow();
  });

  it('produces certificates and keys that kubectl (Go crypto/x509 and crypto/tls) accepts', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'x509-kubectl-'));
    try {
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      const kubeconfig = [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: test',
        '  cluster:',
        `    server: https://127.0.0.1:${port}`,
        `    certificate-authority-data: ${b64(ca.certPem)}`,
        'users:',
        '- name: alice',
        '  user:',
        `    client-certificate-data: ${b64(client.certPem)}`,
        `    client-key-data: ${b64(client.keyPem)}`,
        'contexts:',
        '- name: test',
        '  context: {cluster: test, user: alice}',
        'current-context: test',
        '',
      ].join('\n');
      const file = path.join(dir, 'kubeconfig');
      writeFileSync(file, kubeconfig);
      const { stdout } = await execFileAsync('kubectl', ['--kubeconfig', file, 'get', '--raw', '/version'], {
        timeout: 30_000,
        env: { ...process.env, HOME: dir },
      });
      expect(JSON.parse(stdout)).toMatchObject({ gitVersion: 'v1.32.0-dev-pki-test' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
