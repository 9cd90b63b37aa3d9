import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { createCertificate, createCertificateAuthority, extKeyUsageOid, issueClientCertificate, issueServingCertificate } from './dev-pki.js';
import type { PemKeyPair } from './dev-pki.js';
import { parseCertificate } from './certificate.js';
import type { ParsedCertificate } from './certificate.js';
import { readPemEntries } from './pem.js';

function derOf(pem: string): Uint8Array {
  const [entry] = readPemEntries(pem);
  if (entry?.kind !== 'block') throw new Error('no block');
  return entry.bytes;
}

function parsed(pem: string): ParsedCertificate {
  const result = parseCertificate(derOf(pem));
  if (!result.ok) throw new Error(result.error);
  return result.certificate;
}

/** Re-encodes a certificate after changing its TBS fields (the signature no longer matches, which parsing does not check). */
function mutated(pem: string, change: (cert: pkijs.Certificate) => void): Uint8Array {
  const cert = pkijs.Certificate.fromBER(derOf(pem));
  change(cert);
  return new Uint8Array(cert.toSchema(true).toBER(false));
}

let ca: PemKeyPair;

beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'parse-test-ca', validityDays: 30 });
});

describe('parseCertificate', () => {
  it('reads the fields of a CA certificate as node\'s native parser sees them', () => {
    const cert = parsed(ca.certPem);
    const native = new X509Certificate(ca.certPem);
    expect(cert.version).toBe(3);
    expect(cert.subject).toBe('CN=parse-test-ca');
    expect(cert.issuer).toBe('CN=parse-test-ca');
    expect(cert.subjectCommonName).toBe('parse-test-ca');
    expect(cert.serialNumber).toBe(native.serialNumber.toLowerCase().replace(/^0+(?=.)/, ''));
    expect(cert.notBefore.getTime()).toBe(new Date(native.validFrom).getTime());
    expect(cert.notAfter.getTime()).toBe(new Date(native.validTo).getTime());
    expect(cert.notAfter.getTime() - cert.notBefore.getTime()).toBe(30 * 86400_000 + 5 * 60_000);
    expect(cert.publicKey).toEqual({ algorithm: 'ECDSA', oid: '1.2.840.10045.2.1', curve: 'P-256' });
    expect(cert.sha256Fingerprint).toBe(native.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(cert.basicConstraints).toEqual({ present: true, ca: true });
    expect(native.ca).toBe(true);
    expect(cert.keyUsage).toEqual(['digitalSignature', 'keyCertSign', 'cRLSign']);
    expect(cert.extKeyUsage).toBeUndefined();
  });

  it('reads SANs and extended key usage of a serving certificate', async () => {
    const serving = await issueServingCertificate(ca, { commonName: 'api', dnsNames: ['localhost', 'api.example'], ipAddresses: ['127.0.0.1', '::1', '2001:db8::7'] });
    const cert = parsed(serving.certPem);
    expect(cert.issuer).toBe('CN=parse-test-ca');
    expect(cert.basicConstraints).toEqual({ present: true, ca: false });
    expect(cert.keyUsage).toEqual(['digitalSignature']);
    expect(cert.extKeyUsage).toEqual([extKeyUsageOid.serverAuth]);
    expect(cert.dnsNames).toEqual(['localhost', 'api.example']);
    expect(cert.ipAddresses).toEqual(['127.0.0.1', '0:0:0:0:0:0:0:1', '2001:db8:0:0:0:0:0:7']);
    expect(new X509Certificate(serving.certPem).subjectAltName).toBe(
      'DNS:localhost, DNS:api.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:7',
    );
  });

  it('reads the user and groups of a client certificate', async () => {
    const client = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['system:masters', 'team, a'] });
    const cert = parsed(client.certPem);
    expect(cert.subjectCommonName).toBe('alice');
    expect(cert.subjectOrganizations).toEqual(['system:masters', 'team, a']);
    expect(cert.subject).toBe('CN=alice,O=team\\, a,O=system:masters');
    expect(cert.extKeyUsage).toEqual([extKeyUsageOid.clientAuth]);
  });

  it('tells an absent basicConstraints extension from cA=false', async () => {
    const none = await createCertificate({ commonName: 'none', basicConstraints: 'absent' });
    expect(parsed(none.certPem).basicConstraints).toEqual({ present: false, ca: false });
    expect(parsed(none.certPem).keyUsage).toBeUndefined();
  });

  it('reads pathLen and an RSA key from a certificate made by openssl', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'x509-openssl-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'),
        '-subj', '/C=DE/O=Example Org/CN=RSA Root', '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:1',
      ], { stdio: 'ignore', timeout: 20_000 });
      const cert = parsed(readFileSync(path.join(dir, 'c.pem'), 'utf8'));
      expect(cert.subject).toBe('CN=RSA Root,O=Example Org,C=DE');
      expect(cert.publicKey).toEqual({ algorithm: 'RSA', oid: '1.2.840.113549.1.1.1', bits: 2048 });
      expect(cert.basicConstraints).toEqual({ present: true, ca: true, pathLen: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bytes with a trailing byte after the certificate', () => {
    const der = derOf(ca.certPem);
    expect(parseCertificate(Uint8Array.from([...der, 0]))).toEqual({ ok: false, error: 'x509: malformed certificate' });
  });

  it('rejects a non-minimal DER length that BER parsers accept', () => {
    const der = derOf(ca.certPem);
    // Outer SEQUENCE: 30 81 LL (or 30 82 LL LL); re-encode the length with one extra leading zero octet.
    const lengthOctets = der[1] & 0x7f;
    const widened = Uint8Array.from([0x30, 0x80 | (lengthOctets + 1), 0, ...der.slice(2)]);
    expect(parseCertificate(widened).ok).toBe(false);
  });

  it('rejects a SEQUENCE encoded primitive and a constructed OCTET STRING, as Go (its exact tag bytes) does', () => {
    const der = derOf(ca.certPem);
    expect(parseCertificate(Uint8Array.from([0x10, ...der.slice(1)]))).toEqual({ ok: false, error: 'x509: malformed certificate' });
    // The first OCTET STRING (an extension value) made constructed.
    const bytes = Buffer.from(der);
    const at = bytes.indexOf(0x04, bytes.indexOf(Buffer.from([0x06, 0x03, 0x55, 0x1d])) + 5);
    expect(at).toBeGreaterThan(0);
    const constructed = Uint8Array.from(der);
    constructed[at] = 0x24;
    expect(parseCertificate(constructed).ok).toBe(false);
  });

  it('rejects validity times Go would not print back the same (junk after the digits)', () => {
    const der = derOf(ca.certPem);
    // notBefore: the first UTCTime element (17 0d, twelve digits, Z); a lone 0x17 byte may occur earlier, in the random serial.
    const isUtcTimeAt = (i: number) =>
      der[i] === 0x17 && der[i + 1] === 0x0d && der[i + 14] === 0x5a && der.subarray(i + 2, i + 14).every((b) => b >= 0x30 && b <= 0x39);
    const at = der.findIndex((_b, i) => isUtcTimeAt(i)) + 2;
    expect(at).toBeGreaterThan(1);
    const junk = Uint8Array.from(der);
    junk[at + 11] = 0x1d;
    expect(parseCertificate(junk)).toEqual({ ok: false, error: 'x509: malformed UTCTime' });
  });

  it('rejects duplicate extensions', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.extensions = [...(cert.extensions ?? []), cert.extensions![0]];
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: certificate contains duplicate extensions' });
  });

  it('rejects a negative serial number', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.serialNumber = new asn1js.Integer({ value: -5 });
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: negative serial number' });
  });

  it('rejects a serial number tagged ENUMERATED (asn1js reads it as an Integer; Go takes tag 2 only)', () => {
    const der = Uint8Array.from(derOf(ca.certPem));
    // The serial is the INTEGER after the [0] version: 30 82 LL LL 30 82 LL LL a0 03 02 01 02 [02] ...
    expect(der[13]).toBe(0x02);
    der[13] = 0x0a;
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: malformed serial number' });
    expect(() => new X509Certificate(der)).toThrow();
  });

  it('rejects mismatched inner and outer signature algorithms', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.signature = new pkijs.AlgorithmIdentifier({ algorithmId: '1.2.840.10045.4.3.3' });
    });
    expect(parseCertificate(der).ok).toBe(false);
  });

  it('rejects signature algorithms that differ only in their parameters', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.signature = new pkijs.AlgorithmIdentifier({ algorithmId: cert.signature.algorithmId, algorithmParams: new asn1js.Null() });
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: "x509: inner and outer signature algorithm identifiers don't match" });
  });

  it('rejects a malformed basicConstraints value', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.extensions = cert.extensions!.map((e) =>
        e.extnID === '2.5.29.19' ? new pkijs.Extension({ extnID: e.extnID, critical: true, extnValue: new asn1js.Utf8String({ value: 'CA' }).toBER() }) : e,
      );
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: invalid basic constraints' });
  });

  it('rejects a basicConstraints cA BOOLEAN that is not DER (0x01 instead of 0xFF)', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.extensions = cert.extensions!.map((e) =>
        e.extnID === '2.5.29.19' ? new pkijs.Extension({ extnID: e.extnID, critical: true, extnValue: Uint8Array.from([0x30, 0x03, 0x01, 0x01, 0x01]).buffer }) : e,
      );
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: invalid basic constraints' });
  });

  it('rejects an unsupported elliptic curve', () => {
    const der = mutated(ca.certPem, (cert) => {
      cert.subjectPublicKeyInfo.algorithm.algorithmParams = new asn1js.ObjectIdentifier({ value: '1.3.132.0.10' });
    });
    expect(parseCertificate(der)).toEqual({ ok: false, error: 'x509: unsupported elliptic curve' });
  });

  // Go's parseName reads each attribute value with parseASN1String: six string types, each with
  // its own characters (crypto/x509/parser.go); OpenSSL refuses the same certificates.
  const withSubjectValue = (value: pkijs.AttributeValueType) =>
    mutated(ca.certPem, (cert) => {
      cert.subject = new pkijs.RelativeDistinguishedNames({ typesAndValues: [new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value })] });
    });
  const utf8Bytes = (bytes: number[]) => {
    const v = new asn1js.Utf8String({ value: 'x' });
    v.valueBlock.valueHexView = Uint8Array.from(bytes);
    return v;
  };

  it.each([
    ['a UTF8String that is not UTF-8', utf8Bytes([0x66, 0xff, 0x6f]), 'invalid UTF-8 string'],
    ['a PrintableString with @', new asn1js.PrintableString({ value: 'a@b' }), 'invalid PrintableString'],
    ['an IA5String with a byte over 0x7f', new asn1js.IA5String({ valueHex: Uint8Array.from([0x61, 0xe9]).buffer }), 'invalid IA5String'],
    ['a NumericString with a letter', new asn1js.NumericString({ value: '12a' }), 'invalid NumericString'],
    // pkijs types attribute values as strings; Go meets any DER element there.
    ['an INTEGER', new asn1js.Integer({ value: 7 }) as unknown as pkijs.AttributeValueType, 'unsupported string type: 2'],
  ])('rejects a subject attribute value that is %s, as Go does', (_name, value, why) => {
    const der = withSubjectValue(value);
    expect(parseCertificate(der)).toEqual({ ok: false, error: `x509: invalid RDNSequence: invalid attribute value: ${why}` });
  });

  it('rejects a BMPString of odd length (asn1js already refuses to decode it: malformed certificate)', () => {
    const der = withSubjectValue(new asn1js.BmpString({ valueHex: Uint8Array.from([0, 0x61, 0]).buffer }));
    expect(parseCertificate(der)).toEqual({ ok: false, error: expect.stringMatching(/^x509: /) });
  });

  it('rejects a subject that is not UTF-8 where OpenSSL does too, so no accepted bundle loses an anchor in canonical form', () => {
    expect(() => new X509Certificate(withSubjectValue(utf8Bytes([0x66, 0xff, 0x6f])))).toThrow();
  });

  it.each([
    ['a PrintableString with * and &', new asn1js.PrintableString({ value: '*.a&b' }), '*.a&b'],
    ['a BMPString with a trailing NUL', new asn1js.BmpString({ valueHex: Uint8Array.from([0, 0x68, 0, 0x69, 0, 0]).buffer }), 'hi'],
    ['a T61String', new asn1js.TeletexString({ value: 'caf\u00e9' }), 'caf\u00e9'],
    ['a UTF8String', new asn1js.Utf8String({ value: 'gr\u00fc\u00df' }), 'gr\u00fc\u00df'],
  ])('accepts a subject attribute value that is %s, as Go does', (_name, value, text) => {
    const result = parseCertificate(withSubjectValue(value));
    expect(result.ok && result.certificate.subject).toBe(`CN=${text}`);
  });

  it.each([
    ['empty input', new Uint8Array(0)],
    ['a lone SEQUENCE tag', Uint8Array.from([0x30])],
    ['an empty SEQUENCE', Uint8Array.from([0x30, 0x00])],
    ['an INTEGER', Uint8Array.from([0x02, 0x01, 0x05])],
    ['a length beyond the input', Uint8Array.from([0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00])],
    ['indefinite length', Uint8Array.from([0x30, 0x80, 0x00, 0x00])],
  ])('returns an error, not an exception, for %s', (_name, der) => {
    expect(parseCertificate(der)).toEqual({ ok: false, error: expect.stringMatching(/^x509: /) });
  });

  it('returns an error for every truncation of a real certificate', () => {
    const der = derOf(ca.certPem);
    for (let length = 0; length < der.length; length += 7) {
      expect(parseCertificate(der.subarray(0, length)).ok).toBe(false);
    }
  });
});
