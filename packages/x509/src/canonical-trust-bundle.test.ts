import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { trustBundleFixtures, withHeaders } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { canonicalTrustBundle, readBundleCertificates, trustAnchorFacts } from './canonical-trust-bundle.js';
import { createCertificate, createCertificateAuthority } from './dev-pki.js';
import { readPemEntries } from './pem.js';
import { validateTrustBundle } from './trust-bundle.js';

let f: TrustBundleFixtures;
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  f = await trustBundleFixtures();
});

describe('canonicalTrustBundle', () => {
  it('merges bundles into one valid bundle holding each certificate once', () => {
    const out = canonicalTrustBundle([f.caA.certPem + f.caB.certPem, f.caB.certPem, f.caA.certPem]);
    expect(validateTrustBundle(out.pem)).toEqual([]);
    expect(readPemEntries(out.pem)).toHaveLength(2);
    expect(out.anchors).toHaveLength(2);
  });

  it('orders certificates by the SHA-256 of their DER and lists anchors in the same order', () => {
    const out = canonicalTrustBundle([f.caB.certPem, f.caA.certPem]);
    const hashes = readBundleCertificates(out.pem).map((c) => c.sha256);
    expect(hashes).toEqual([...hashes].sort());
    expect(out.anchors.map((a) => a.sha256)).toEqual(hashes);
  });

  it('digests the canonical PEM with SHA-256 in hex', () => {
    const out = canonicalTrustBundle([f.caA.certPem]);
    expect(out.digest).toBe(sha256(out.pem));
    expect(out.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same PEM and digest for any order, duplication and wrapping of the same set', async () => {
    const extra = await createCertificateAuthority({ commonName: 'fixture-ca-c' });
    const certs = [f.caA.certPem, f.caB.certPem, extra.certPem];
    const expected = canonicalTrustBundle([certs.join('')]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...certs), { minLength: 3, maxLength: 9 }), fc.integer({ min: 1, max: 4 }), (picked, split) => {
        const all = [...new Set(picked)].length === 3 ? picked : [...picked, ...certs];
        const bundles: string[] = [];
        for (let i = 0; i < all.length; i += split) bundles.push(`# bundle ${i}\n` + all.slice(i, i + split).join('text between\n'));
        const out = canonicalTrustBundle(bundles);
        expect(out.pem).toBe(expected.pem);
        expect(out.digest).toBe(expected.digest);
      }),
      { numRuns: 60 },
    );
  });

  it('drops headers, text between blocks, non-certificate and malformed blocks', () => {
    const messy = `# comment\n${withHeaders(f.caA.certPem, 'Comment: hi')}junk\n${f.caA.keyPem}\n-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n`;
    const out = canonicalTrustBundle([messy]);
    expect(out.pem).toBe(canonicalTrustBundle([f.caA.certPem]).pem);
    expect(out.pem).not.toContain('Comment');
    expect(out.pem).not.toContain('junk');
    expect(out.pem.startsWith('-----BEGIN CERTIFICATE-----\n')).toBe(true);
  });

  it('leaves out a CERTIFICATE block that is not X.509', () => {
    const notX509 = '-----BEGIN CERTIFICATE-----\nAAECAwQ=\n-----END CERTIFICATE-----\n';
    const out = canonicalTrustBundle([notX509 + f.caA.certPem]);
    expect(out.anchors).toHaveLength(1);
    expect(readPemEntries(out.pem)).toHaveLength(1);
  });

  it('re-encodes certificates with 64-column lines and a final newline', () => {
    const body = f.caA.certPem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
    const oneLine = `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;
    expect(canonicalTrustBundle([oneLine]).pem).toBe(f.caA.certPem);
  });

  it('accepts certificates already read, as a watcher keeps them per object', () => {
    const fromText = canonicalTrustBundle([f.caA.certPem, f.caB.certPem]);
    const fromCerts = canonicalTrustBundle([readBundleCertificates(f.caA.certPem), readBundleCertificates(f.caB.certPem)]);
    expect(fromCerts).toEqual(fromText);
  });

  it('returns the empty bundle when there is nothing to project', () => {
    const out = canonicalTrustBundle(['', 'no blocks']);
    expect(out).toEqual({ pem: '', digest: sha256(''), anchors: [] });
    expect(canonicalTrustBundle([]).pem).toBe('');
  });

  it('reports the earliest notAfter of the anchors', async () => {
    const short = await createCertificateAuthority({ commonName: 'short-lived', validityDays: 3 });
    const out = canonicalTrustBundle([f.caA.certPem, short.certPem]);
    const shortAnchor = out.anchors.find((a) => a.subject === 'CN=short-lived')!;
    expect(out.earliestNotAfter).toEqual(shortAnchor.notAfter);
  });
});

describe('trustAnchorFacts', () => {
  it('describes each anchor of a bundle: names, fingerprint, validity, self-signed, CA', async () => {
    const intermediate = await createCertificate({ commonName: 'intermediate', organizations: ['Example'], basicConstraints: 'ca', keyUsage: ['keyCertSign'] }, f.caA);
    const facts = trustAnchorFacts(f.caA.certPem + intermediate.certPem);
    expect(facts.anchors).toHaveLength(2);
    const root = facts.anchors.find((a) => a.subject === 'CN=fixture-ca-a')!;
    const inter = facts.anchors.find((a) => a.subject === 'CN=intermediate,O=Example')!;
    expect(root).toMatchObject({ issuer: 'CN=fixture-ca-a', selfSigned: true, ca: true });
    expect(inter).toMatchObject({ issuer: 'CN=fixture-ca-a', selfSigned: false, ca: true });
    const [der] = readBundleCertificates(f.caA.certPem);
    expect(root.sha256).toBe(sha256(der.der));
    expect(root.notBefore.getTime()).toBeLessThan(Date.now());
    expect(root.notAfter.getTime() - root.notBefore.getTime()).toBeGreaterThan(364 * 86_400_000);
    expect(facts.earliestNotAfter).toEqual(new Date(Math.min(root.notAfter.getTime(), inter.notAfter.getTime())));
  });

  it('is not fooled by a certificate naming itself as issuer without its own signature', async () => {
    // Same subject and issuer name, but signed by another CA's key.
    const impostor = await createCertificate({ commonName: 'fixture-ca-b', basicConstraints: 'ca', keyUsage: ['keyCertSign'] }, f.caB);
    const [anchor] = trustAnchorFacts(impostor.certPem).anchors;
    expect(anchor.subject).toBe(anchor.issuer);
    expect(anchor.selfSigned).toBe(false);
  });

  it('reports a non-CA certificate as such', () => {
    const [anchor] = trustAnchorFacts(f.leaf.certPem).anchors;
    expect(anchor.ca).toBe(false);
  });

  it('has no earliest notAfter for an empty bundle', () => {
    expect(trustAnchorFacts('')).toEqual({ anchors: [] });
  });

  it('hands out copies, so a caller cannot change what the next caller sees', () => {
    const first = trustAnchorFacts(f.caA.certPem).anchors[0];
    first.notAfter.setTime(0);
    expect(trustAnchorFacts(f.caA.certPem).anchors[0].notAfter.getTime()).not.toBe(0);
  });
});
