import { readBundleCertificates } from './canonical-trust-bundle.js';
import { parseCertificate } from './certificate.js';
import { createCertificate, createCertificateAuthority } from './dev-pki.js';
import { describeTrustAnchor, trustAnchorValidity } from './trust-anchor.js';

const day = 86_400_000;

describe('describeTrustAnchor', () => {
  it('describes a certificate and answers undefined for bytes that are not X.509', async () => {
    const ca = await createCertificateAuthority({ commonName: 'describe-me' });
    const [cert] = readBundleCertificates(ca.certPem);
    expect(describeTrustAnchor(cert.der, cert.sha256)).toMatchObject({ subject: 'CN=describe-me', sha256: cert.sha256, ca: true, selfSigned: true });
    expect(describeTrustAnchor(Uint8Array.of(1, 2, 3), 'not-a-certificate')).toBeUndefined();
  });

  it('agrees with the strict parser on names (escapes included) and validity', async () => {
    const ca = await createCertificateAuthority({ commonName: 'cross-check root' });
    const odd = await createCertificate(
      { commonName: 'odd, "quoted" +name', organizations: ['Acme, Inc.', 'Ünïcode'], basicConstraints: 'ca', keyUsage: ['keyCertSign'], notBefore: new Date('2020-02-29T12:34:56Z'), validityDays: 3650 },
      ca,
    );
    for (const pem of [ca.certPem, odd.certPem]) {
      const [cert] = readBundleCertificates(pem);
      const strict = parseCertificate(cert.der);
      if (!strict.ok) throw new Error(strict.error);
      const facts = describeTrustAnchor(cert.der, cert.sha256)!;
      expect(facts.subject).toBe(strict.certificate.subject);
      expect(facts.issuer).toBe(strict.certificate.issuer);
      expect(facts.notBefore).toEqual(strict.certificate.notBefore);
      expect(facts.notAfter).toEqual(strict.certificate.notAfter);
      expect(facts.ca).toBe(strict.certificate.basicConstraints.ca);
    }
  });
});

describe('trustAnchorValidity', () => {
  const anchor = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2026-12-31T00:00:00Z') };

  it.each([
    ['2025-12-31T23:59:59Z', 'not-yet-valid'],
    ['2026-01-01T00:00:00Z', 'valid'],
    ['2026-06-01T00:00:00Z', 'valid'],
    ['2026-12-31T00:00:00Z', 'valid'],
    ['2026-12-31T00:00:01Z', 'expired'],
  ])('at %s the anchor is %s', (now, validity) => {
    expect(trustAnchorValidity(anchor, { now: new Date(now) })).toBe(validity);
  });

  it('says expires-soon when notAfter falls within the window, bounds included', () => {
    const notAfter = anchor.notAfter.getTime();
    expect(trustAnchorValidity(anchor, { now: notAfter - 30 * day, soonMs: 30 * day })).toBe('expires-soon');
    expect(trustAnchorValidity(anchor, { now: notAfter - 30 * day - 1, soonMs: 30 * day })).toBe('valid');
    // Expired and not-yet-valid win over the window.
    expect(trustAnchorValidity(anchor, { now: notAfter + 1, soonMs: 30 * day })).toBe('expired');
  });
});
