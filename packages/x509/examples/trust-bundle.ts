import * as assert from 'node:assert/strict';
import {
  canonicalizeTrustBundle,
  createCertificateAuthority,
  issueServingCertificate,
  parseCertificate,
  readPemBundle,
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

// What a node agent projects: each certificate once, in a stable order, headers dropped.
const other = await createCertificateAuthority({ commonName: 'other-ca' });
const canonical = canonicalizeTrustBundle([ca.certPem + other.certPem, other.certPem]);
assert.equal(readPemBundle(canonical).blocks.length, 2);
