import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { createCertificateAuthority, issueClientCertificate } from '@plat/x509';
import { adminKubeconfig, clientURL } from './admin-kubeconfig.js';
import { ensureDevPki } from './dev-pki.js';

describe('development PKI', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-pki-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates a CA, a localhost serving certificate and a system:masters admin certificate, keys 0600', async () => {
    const pki = await ensureDevPki(dir);
    expect(pki.action).toBe('created');
    const ca = new X509Certificate(pki.ca.certPem);
    const serving = new X509Certificate(pki.serving.certPem);
    const admin = new X509Certificate(pki.admin.certPem);
    expect(ca.ca).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.checkIP('::1')).toBe('::1');
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(admin.toLegacyObject().subject).toEqual(expect.objectContaining({ CN: 'plat-admin', O: 'system:masters' }));
    for (const f of ['ca.key', 'apiserver.key', 'admin.key']) {
      expect(fs.statSync(path.join(dir, 'pki', f)).mode & 0o777).toBe(0o600);
    }
    expect(fs.statSync(path.join(dir, 'pki')).mode & 0o777).toBe(0o700);
  });

  it('reuses the files on the next start', async () => {
    const first = await ensureDevPki(dir);
    const second = await ensureDevPki(dir);
    expect(second.action).toBe('reused');
    expect(second.ca.certPem).toBe(first.ca.certPem);
    expect(second.serving.certPem).toBe(first.serving.certPem);
  });

  it('reissues leaf certificates close to expiry with the same CA', async () => {
    const first = await ensureDevPki(dir);
    const later = new Date(Date.now() + 340 * 86400_000);
    const renewed = await ensureDevPki(dir, later);
    expect(renewed.action).toBe('renewed');
    expect(renewed.ca.certPem).toBe(first.ca.certPem);
    expect(renewed.serving.certPem).not.toBe(first.serving.certPem);
  });

  it('reissues an admin certificate that another CA signed', async () => {
    await ensureDevPki(dir);
    const other = await createCertificateAuthority({ commonName: 'other' });
    const foreign = await issueClientCertificate(other, { commonName: 'plat-admin', organizations: ['system:masters'] });
    fs.writeFileSync(path.join(dir, 'pki', 'admin.crt'), foreign.certPem);
    fs.writeFileSync(path.join(dir, 'pki', 'admin.key'), foreign.keyPem);
    const again = await ensureDevPki(dir);
    expect(again.action).toBe('renewed');
    expect(again.admin.certPem).not.toBe(foreign.certPem);
  });
});

describe('admin kubeconfig', () => {
  it('is a kubeconfig (v1 Config) with embedded CA, client certificate and key', async () => {
    const ca = await createCertificateAuthority({ commonName: 'ca' });
    const admin = await issueClientCertificate(ca, { commonName: 'plat-admin', organizations: ['system:masters'] });
    const doc = parse(adminKubeconfig({ server: 'https://127.0.0.1:6443', ca, admin }));
    expect(doc.apiVersion).toBe('v1');
    expect(doc.kind).toBe('Config');
    expect(doc['current-context']).toBe('plat-admin@plat');
    expect(doc.clusters[0].cluster.server).toBe('https://127.0.0.1:6443');
    expect(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(ca.certPem);
    expect(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString()).toBe(admin.keyPem);
  });

  it('points clients at loopback when bound to every interface', () => {
    expect(clientURL('0.0.0.0', 6443)).toBe('https://127.0.0.1:6443');
    expect(clientURL('::', 1)).toBe('https://[::1]:1');
    expect(clientURL('10.0.0.5', 2)).toBe('https://10.0.0.5:2');
  });
});
