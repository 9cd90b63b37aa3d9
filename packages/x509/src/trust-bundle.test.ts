import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { trustBundleFixtures, withHeaders } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { maxTrustBundleSize, validateTrustBundle, type TrustBundleFinding } from './trust-bundle.js';

let f: TrustBundleFixtures;
let opensslRsaCa: string;
let opensslV1: string;

/** Certificates from another implementation (OpenSSL), so the rules are not only checked against our own dev PKI. */
function opensslCertificates(): { rsaCa: string; v1: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'x509-bundle-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore', timeout: 20_000 });
  try {
    run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rsa.key', '-out', 'rsa.pem', '-subj', '/CN=openssl rsa ca', '-days', '2']);
    run(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', 'v1.key', '-subj', '/CN=v1', '-out', 'v1.csr']);
    run(['x509', '-req', '-in', 'v1.csr', '-signkey', 'v1.key', '-days', '2', '-out', 'v1.pem']);
    return { rsaCa: readFileSync(path.join(dir, 'rsa.pem'), 'utf8'), v1: readFileSync(path.join(dir, 'v1.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  f = await trustBundleFixtures();
  ({ rsaCa: opensslRsaCa, v1: opensslV1 } = opensslCertificates());
});

describe('validateTrustBundle', () => {
  it('accepts a single CA certificate', () => {
    expect(validateTrustBundle(f.caA.certPem)).toEqual([]);
  });

  it('accepts several distinct CA certificates', () => {
    expect(validateTrustBundle(f.caA.certPem + f.caB.certPem)).toEqual([]);
  });

  it('hands each accepted certificate to onCertificate, with the validity times of its parse', () => {
    const seen: { der: Uint8Array; notAfter: Date }[] = [];
    expect(validateTrustBundle(f.caA.certPem + f.caB.certPem, { onCertificate: (der, c) => seen.push({ der, notAfter: c.notAfter }) })).toEqual([]);
    expect(seen.map((s) => Buffer.from(s.der).equals(new X509Certificate(f.caA.certPem).raw))).toEqual([true, false]);
    expect(seen[1]!.notAfter.getTime()).toBe(Date.parse(new X509Certificate(f.caB.certPem).validTo));
  });

  it('accepts an RSA CA made by OpenSSL next to our ECDSA CA', () => {
    expect(validateTrustBundle(opensslRsaCa + f.caA.certPem)).toEqual([]);
  });

  it('rejects an X.509 v1 certificate (no extensions, so no CA bit) made by OpenSSL', () => {
    expect(new X509Certificate(opensslV1).ca).toBe(false);
    expect(validateTrustBundle(opensslV1)).toEqual([
      { index: 0, kind: 'no-basic-constraints', detail: 'entry 0 does not have the CA bit set' },
    ]);
  });

  it('ignores text before, between and after blocks, as Go pem.Decode does', () => {
    const pem = `# bundle for team a\n${f.caA.certPem}\nsome comment: with a colon\n\n${f.caB.certPem}trailing words`;
    expect(validateTrustBundle(pem)).toEqual([]);
  });

  it('accepts CRLF line endings and trailing whitespace on lines', () => {
    const pem = f.caA.certPem.replace(/\n/g, '  \r\n');
    expect(validateTrustBundle(pem)).toEqual([]);
  });

  it('rejects an empty bundle', () => {
    expect(validateTrustBundle('')).toEqual([{ index: -1, kind: 'empty', detail: 'at least one trust anchor must be provided' }]);
  });

  it('rejects a bundle with only text and no blocks', () => {
    expect(validateTrustBundle('no certificates here\n')).toEqual([
      { index: -1, kind: 'empty', detail: 'at least one trust anchor must be provided' },
    ]);
  });

  it('rejects a private key block with its entry index and type', () => {
    expect(validateTrustBundle(f.caA.certPem + f.caA.keyPem)).toEqual([
      { index: 1, kind: 'bad-block-type', detail: 'entry 1 has bad block type: PRIVATE KEY' },
    ]);
  });

  it('rejects a bundle whose second block has PEM headers', () => {
    const pem = f.caA.certPem + withHeaders(f.caB.certPem, 'Proc-Type: 4,ENCRYPTED');
    expect(validateTrustBundle(pem)).toEqual([{ index: 1, kind: 'pem-headers', detail: 'entry 1 has PEM block headers' }]);
  });

  it('checks the block type before the headers, as Kubernetes does', () => {
    const pem = withHeaders(f.caA.keyPem, 'Comment: key');
    expect(validateTrustBundle(pem)).toEqual([{ index: 0, kind: 'bad-block-type', detail: 'entry 0 has bad block type: PRIVATE KEY' }]);
  });

  it('rejects a CERTIFICATE block that is not X.509', () => {
    const pem = '-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n';
    expect(validateTrustBundle(pem)).toEqual([{ index: 0, kind: 'not-x509', detail: 'entry 0 does not parse as X.509' }]);
  });

  it('rejects a certificate with trailing bytes after the DER', () => {
    const der = new X509Certificate(f.caA.certPem).raw;
    const padded = Buffer.concat([der, Buffer.from([0, 0])]).toString('base64');
    const pem = `-----BEGIN CERTIFICATE-----\n${padded}\n-----END CERTIFICATE-----\n`;
    expect(validateTrustBundle(pem)).toEqual([{ index: 0, kind: 'not-x509', detail: 'entry 0 does not parse as X.509' }]);
  });

  it('rejects a non-CA leaf certificate', () => {
    expect(validateTrustBundle(f.caA.certPem + f.leaf.certPem)).toEqual([
      { index: 1, kind: 'not-ca', detail: 'entry 1 does not have the CA bit set' },
    ]);
  });

  it('rejects a certificate without basic constraints with Kubernetes\' CA-bit message', () => {
    expect(validateTrustBundle(f.noBasicConstraints.certPem)).toEqual([
      { index: 0, kind: 'no-basic-constraints', detail: 'entry 0 does not have the CA bit set' },
    ]);
  });

  it('reports duplicates with every index, in Go\'s slice format', () => {
    const pem = f.caA.certPem + f.caB.certPem + f.caA.certPem + f.caB.certPem + f.caA.certPem;
    expect(validateTrustBundle(pem)).toEqual([
      { index: 0, kind: 'duplicate', detail: 'duplicate trust anchor (indices [0 2 4])', indices: [0, 2, 4] },
      { index: 1, kind: 'duplicate', detail: 'duplicate trust anchor (indices [1 3])', indices: [1, 3] },
    ]);
  });

  it('detects duplicates by DER, whatever the line wrapping', () => {
    const body = f.caA.certPem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
    const rewrapped = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{76})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
    expect(rewrapped).not.toBe(f.caA.certPem);
    expect(validateTrustBundle(f.caA.certPem + rewrapped)[0]).toMatchObject({ kind: 'duplicate', indices: [0, 1] });
  });

  it('reports every bad entry and hides duplicate and empty findings behind them', () => {
    const pem = f.caA.certPem + f.caA.keyPem + f.leaf.certPem + f.caA.certPem;
    expect(validateTrustBundle(pem)).toEqual([
      { index: 1, kind: 'bad-block-type', detail: 'entry 1 has bad block type: PRIVATE KEY' },
      { index: 2, kind: 'not-ca', detail: 'entry 2 does not have the CA bit set' },
    ]);
  });

  // Go's pem.Decode (src/encoding/pem/pem.go) rejects a block that does not decode and searches on
  // from the line after its BEGIN line, so Kubernetes' validateTrustBundle never sees it.
  function skipped(pem: string): { findings: TrustBundleFinding[]; skipped: string[] } {
    const seen: string[] = [];
    const findings = validateTrustBundle(pem, { onSkippedBlock: (finding) => seen.push(`${finding.kind} ${finding.index}: ${finding.detail}`) });
    return { findings, skipped: seen };
  }

  it('skips a CERTIFICATE block with malformed base64 before a good CA, as Go does, and says so', () => {
    const broken = f.caB.certPem.replace(/\n[A-Za-z0-9+/]{4}/, '\n!!!!');
    expect(skipped(broken + f.caA.certPem)).toEqual({
      findings: [],
      skipped: ['skipped-pem -1: skipped a CERTIFICATE block at line 1 that does not parse as PEM: invalid base64 data'],
    });
  });

  it('quotes a skipped block type that holds control characters, so the finding fits a Warning header', () => {
    const broken = f.caB.certPem.replace('-----BEGIN CERTIFICATE-----', '-----BEGIN CERT\rIFICATE\u0000-----').replace(/\n[A-Za-z0-9+/]{4}/, '\n!!!!');
    const { findings, skipped: seen } = skipped(broken + f.caA.certPem);
    expect(findings).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^skipped-pem -1: skipped a "CERT\\rIFICATE\\u0000" block at line 1 that does not parse as PEM: /);
    expect(seen[0]).toMatch(/^[\x20-\x7e]*$/);
  });

  it('numbers entries without the skipped blocks, as Kubernetes does', () => {
    const broken = f.caB.certPem.replace(/\n[A-Za-z0-9+/]{4}/, '\n!!!!');
    expect(validateTrustBundle(broken + f.leaf.certPem)).toEqual([{ index: 0, kind: 'not-ca', detail: 'entry 0 does not have the CA bit set' }]);
  });

  it('skips a block without an END line and finds nothing after it, as Go stops there', () => {
    const truncated = f.caB.certPem.replace('-----END CERTIFICATE-----\n', '');
    expect(skipped(f.caA.certPem + truncated)).toEqual({
      findings: [],
      skipped: [`skipped-pem -1: skipped a CERTIFICATE block at line ${f.caA.certPem.split('\n').length} that does not parse as PEM: no END line`],
    });
    expect(validateTrustBundle(truncated)).toEqual([{ index: -1, kind: 'empty', detail: 'at least one trust anchor must be provided' }]);
  });

  it('skips a block whose END line does not match, so a bundle of only that holds no anchor', () => {
    const mismatched = f.caA.certPem.replace('-----END CERTIFICATE-----', '-----END CERTIFICATES-----');
    expect(skipped(mismatched)).toEqual({
      findings: [{ index: -1, kind: 'empty', detail: 'at least one trust anchor must be provided' }],
      skipped: ['skipped-pem -1: skipped a CERTIFICATE block at line 1 that does not parse as PEM: END line does not match the BEGIN line'],
    });
  });

  it('still refuses what Go decodes and Kubernetes rejects: headers, other types, duplicates', () => {
    const headered = f.caB.certPem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n');
    const broken = f.caB.certPem.replace(/\n[A-Za-z0-9+/]{4}/, '\n!!!!');
    expect(validateTrustBundle(broken + headered)).toEqual([{ index: 0, kind: 'pem-headers', detail: 'entry 0 has PEM block headers' }]);
    expect(validateTrustBundle(broken + f.caA.certPem + f.caA.certPem)[0]?.kind).toBe('duplicate');
  });

  it('accepts a bundle of exactly the maximum size and rejects one byte more', () => {
    const filler = 'x'.repeat(maxTrustBundleSize - f.caA.certPem.length - 1);
    const atLimit = f.caA.certPem + '\n' + filler;
    expect(Buffer.byteLength(atLimit)).toBe(maxTrustBundleSize);
    expect(validateTrustBundle(atLimit)).toEqual([]);
    expect(validateTrustBundle(atLimit + 'x')).toEqual([{ index: -1, kind: 'too-large', detail: 'may not be more than 1048576 bytes' }]);
  });

  it('counts the size in UTF-8 bytes, as Go does', () => {
    const filler = 'é'.repeat(Math.ceil((maxTrustBundleSize - f.caA.certPem.length) / 2) + 1);
    expect((f.caA.certPem + filler).length).toBeLessThan(maxTrustBundleSize);
    expect(validateTrustBundle(f.caA.certPem + filler)[0]?.kind).toBe('too-large');
  });
});
