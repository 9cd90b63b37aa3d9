import * as assert from 'node:assert/strict';
import {
  canonicalTrustBundle,
  createCertificateAuthority,
  issueServingCertificate,
  parseCertificate,
  readPemBundle,
  trustAnchorValidity,
  validateTrustBundle,
} from '@plat/x509';

// A development CA and a serving certificate it issues (ECDSA P-256, PEM).
const ca = await createCertificateAuthority({ commonName: 'example-ca' });
const serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

// ClusterTrustBundle rules: only CA certificates, no duplicates, no PEM headers.
assert.deepEqual(validateTrustBundle(ca.certPem), []);
const findings = validateTrustBundle(ca.certPem + serving.certPem + ca.certPem);
assert.deepEqual(
  findings.map((f) => `${f.kind}: ${f.detail}`),
  ['not-ca: entry 1 does not have the CA bit set'],
);

// Parsing: the fields a trust-anchor tool looks at.
const [block] = readPemBundle(ca.certPem).blocks;
const parsed = parseCertificate(block.bytes);
assert.ok(parsed.ok);
console.log(parsed.certificate.subject, parsed.certificate.basicConstraints, parsed.certificate.sha256Fingerprint);

// What every consumer writes: each certificate once, sorted by the SHA-256 of its DER, headers
// dropped; the digest names the set, and each anchor comes with the facts an operator looks at.
const other = await createCertificateAuthority({ commonName: 'other-ca', validityDays: 20 });
const canonical = canonicalTrustBundle([ca.certPem + other.certPem, other.certPem]);
assert.equal(readPemBundle(canonical.pem).blocks.length, 2);
assert.equal(canonical.digest, canonicalTrustBundle([other.certPem, ca.certPem]).digest);
for (const anchor of canonical.anchors) {
  console.log(anchor.subject, anchor.sha256.slice(0, 16), anchor.notAfter.toISOString(), anchor.selfSigned, anchor.ca);
}
// The short-lived CA expires within 30 days.
const soon = canonical.anchors.filter((a) => trustAnchorValidity(a, { soonMs: 30 * 86_400_000 }) === 'expires-soon');
assert.deepEqual(soon.map((a) => a.subject), ['CN=other-ca']);
assert.equal(canonical.earliestNotAfter?.getTime(), soon[0]!.notAfter.getTime());
