import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { isSingleDerElement } from './der.js';

export interface BasicConstraints {
  /** Whether the certificate carries the basicConstraints extension at all. */
  readonly present: boolean;
  /** The cA flag (false when the extension is absent). */
  readonly ca: boolean;
  /** pathLenConstraint, when set. */
  readonly pathLen?: number;
}

/** RFC 5280 key usage bits, in Go's and RFC 5280's names. */
export type KeyUsage =
  | 'digitalSignature'
  | 'contentCommitment'
  | 'keyEncipherment'
  | 'dataEncipherment'
  | 'keyAgreement'
  | 'keyCertSign'
  | 'cRLSign'
  | 'encipherOnly'
  | 'decipherOnly';

const keyUsageBits: readonly KeyUsage[] = [
  'digitalSignature',
  'contentCommitment',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
];

export type PublicKeyAlgorithm = 'RSA' | 'ECDSA' | 'Ed25519' | 'X25519' | 'DSA' | 'unknown';

export interface PublicKeyInfo {
  readonly algorithm: PublicKeyAlgorithm;
  /** The algorithm OID of the SubjectPublicKeyInfo. */
  readonly oid: string;
  /** Named curve for ECDSA keys (P-224, P-256, P-384, P-521). */
  readonly curve?: string;
  /** Modulus size in bits for RSA keys. */
  readonly bits?: number;
}

export interface ParsedCertificate {
  readonly version: number;
  /** Serial number as lowercase hex without leading zero octets ("0" for zero). */
  readonly serialNumber: string;
  /** RFC 4514 string of the subject, most specific RDN first (as Go's pkix.Name.String). */
  readonly subject: string;
  readonly issuer: string;
  readonly subjectCommonName?: string;
  readonly subjectOrganizations: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly publicKey: PublicKeyInfo;
  /** SHA-256 of the DER encoding, lowercase hex. */
  readonly sha256Fingerprint: string;
  readonly basicConstraints: BasicConstraints;
  /** Key usage bits set, or undefined when the extension is absent. */
  readonly keyUsage?: readonly KeyUsage[];
  /** Extended key usage OIDs, or undefined when the extension is absent. */
  readonly extKeyUsage?: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** The exact DER bytes the certificate was parsed from. */
  readonly der: Uint8Array;
}

export type CertificateParseResult =
  | { readonly ok: true; readonly certificate: ParsedCertificate }
  | { readonly ok: false; readonly error: string };

/** Options that let validation skip work it does not need. */
export interface ParseCertificateOptions {
  /** Skip the SHA-256 fingerprint and name strings (validation only needs structure and constraints). */
  readonly minimal?: boolean;
}

const oid = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  rsa: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  ec: '1.2.840.10045.2.1',
  ed25519: '1.3.101.112',
  x25519: '1.3.101.110',
  dsa: '1.2.840.10040.4.1',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
} as const;

const curves: Readonly<Record<string, string>> = {
  '1.3.132.0.33': 'P-224',
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

// RFC 4514 short names, the set Go's pkix.Name.String prints by name.
const attributeNames: Readonly<Record<string, string>> = {
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.3': 'CN',
  '2.5.4.5': 'SERIALNUMBER',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.17': 'POSTALCODE',
};

class CertificateError extends Error {}

function fail(message: string): never {
  throw new CertificateError(message);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function parseExtensionValue(value: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(value);
  if (parsed.offset !== value.byteLength || !isSingleDerElement(value)) fail(`x509: invalid ${what}`);
  return parsed.result;
}

function parseBasicConstraints(value: Uint8Array): BasicConstraints {
  const seq = parseExtensionValue(value, 'basic constraints');
  if (!(seq instanceof asn1js.Sequence)) fail('x509: invalid basic constraints');
  const items = seq.valueBlock.value;
  let i = 0;
  let ca = false;
  let pathLen: number | undefined;
  if (items[i] instanceof asn1js.Boolean) {
    ca = (items[i] as asn1js.Boolean).getValue();
    i++;
  }
  if (items[i] instanceof asn1js.Integer) {
    const n = (items[i] as asn1js.Integer).valueBlock.valueDec;
    if (n < 0 || !Number.isSafeInteger(n)) fail('x509: invalid basic constraints');
    pathLen = n;
    i++;
  }
  if (i !== items.length) fail('x509: invalid basic constraints');
  return pathLen === undefined ? { present: true, ca } : { present: true, ca, pathLen };
}

function parseKeyUsage(value: Uint8Array): KeyUsage[] {
  const bits = parseExtensionValue(value, 'key usage');
  if (!(bits instanceof asn1js.BitString)) fail('x509: invalid key usage');
  const bytes = bits.valueBlock.valueHexView;
  const unused = bits.valueBlock.unusedBits;
  if (unused > 7 || (bytes.length === 0 && unused !== 0)) fail('x509: invalid key usage');
  const usages: KeyUsage[] = [];
  keyUsageBits.forEach((name, bit) => {
    const byte = bit >> 3;
    if (byte < bytes.length && bit < bytes.length * 8 - unused && (bytes[byte] & (0x80 >> (bit & 7))) !== 0) usages.push(name);
  });
  return usages;
}

function parseExtKeyUsage(value: Uint8Array): string[] {
  const seq = parseExtensionValue(value, 'extended key usages');
  if (!(seq instanceof asn1js.Sequence)) fail('x509: invalid extended key usages');
  return seq.valueBlock.value.map((item) => {
    if (!(item instanceof asn1js.ObjectIdentifier)) fail('x509: invalid extended key usages');
    return item.valueBlock.toString();
  });
}

function parseSubjectAltNames(value: Uint8Array): { dnsNames: string[]; ipAddresses: string[] } {
  const seq = parseExtensionValue(value, 'subject alternative names');
  if (!(seq instanceof asn1js.Sequence)) fail('x509: invalid subject alternative names');
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const item of seq.valueBlock.value) {
    const tag = item.idBlock;
    if (tag.tagClass !== 3) fail('x509: invalid subject alternative names');
    if (tag.tagNumber === 2 || tag.tagNumber === 7) {
      const raw = (item as asn1js.Primitive).valueBlock.valueHexView;
      if (raw === undefined) fail('x509: invalid subject alternative names');
      if (tag.tagNumber === 2) {
        for (const c of raw) if (c > 0x7e || c < 0x20) fail('x509: SAN dNSName is malformed');
        dnsNames.push(Buffer.from(raw).toString('latin1'));
      } else if (raw.length === 4) {
        ipAddresses.push(Array.from(raw).join('.'));
      } else if (raw.length === 16) {
        const groups: string[] = [];
        for (let i = 0; i < 16; i += 2) groups.push(((raw[i] << 8) | raw[i + 1]).toString(16));
        ipAddresses.push(groups.join(':'));
      } else {
        fail(`x509: cannot parse IP address of length ${raw.length}`);
      }
    }
  }
  return { dnsNames, ipAddresses };
}

function parsePublicKey(spki: pkijs.PublicKeyInfo): PublicKeyInfo {
  const algorithmOid = spki.algorithm.algorithmId;
  const key = spki.subjectPublicKey.valueBlock.valueHexView;
  switch (algorithmOid) {
    case oid.rsa:
    case oid.rsaPss: {
      const parsed = asn1js.fromBER(key);
      const seq = parsed.result;
      if (parsed.offset !== key.byteLength || !(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length !== 2) {
        fail('x509: invalid RSA public key');
      }
      const [modulus, exponent] = seq.valueBlock.value;
      if (!(modulus instanceof asn1js.Integer) || !(exponent instanceof asn1js.Integer)) fail('x509: invalid RSA public key');
      const n = modulus.valueBlock.valueHexView;
      if (n.length === 0 || (n[0] & 0x80) !== 0) fail('x509: RSA modulus is not a positive number');
      if (exponent.valueBlock.valueDec <= 0) fail('x509: RSA public exponent is not a positive number');
      let bits = n.length * 8;
      for (let i = 0; i < n.length && n[i] === 0; i++) bits -= 8;
      return { algorithm: 'RSA', oid: algorithmOid, bits };
    }
    case oid.ec: {
      const params = spki.algorithm.algorithmParams;
      if (!(params instanceof asn1js.ObjectIdentifier)) fail('x509: invalid ECDSA parameters');
      const curve = curves[params.valueBlock.toString()];
      if (curve === undefined) fail('x509: unsupported elliptic curve');
      if (key.length === 0 || key[0] !== 4) fail('x509: failed to unmarshal elliptic curve point');
      return { algorithm: 'ECDSA', oid: algorithmOid, curve };
    }
    case oid.ed25519:
      if (key.length !== 32) fail('x509: wrong Ed25519 public key size');
      return { algorithm: 'Ed25519', oid: algorithmOid };
    case oid.x25519:
      if (key.length !== 32) fail('x509: wrong X25519 public key size');
      return { algorithm: 'X25519', oid: algorithmOid };
    case oid.dsa:
      return { algorithm: 'DSA', oid: algorithmOid };
    default:
      return { algorithm: 'unknown', oid: algorithmOid };
  }
}

function escapeRdnValue(value: string): string {
  let out = value.replace(/[\\,+"<>;]/g, (c) => '\\' + c);
  if (out.startsWith(' ') || out.startsWith('#')) out = '\\' + out;
  if (out.endsWith(' ') && !out.endsWith('\\ ')) out = out.slice(0, -1) + '\\ ';
  return out;
}

function attributeValueString(value: asn1js.AsnType): string {
  const block = (value as { valueBlock?: { value?: unknown } }).valueBlock;
  if (block !== undefined && typeof block.value === 'string') return block.value;
  return '#' + hex(new Uint8Array(value.toBER(false)));
}

function nameString(name: pkijs.RelativeDistinguishedNames): string {
  // Go prints the RDN sequence in reverse order (most specific first), multi-valued RDNs joined by "+".
  const rdns: string[] = [];
  const raw = name.valueBeforeDecode;
  const parsed = asn1js.fromBER(raw);
  const seq = parsed.result;
  if (!(seq instanceof asn1js.Sequence)) return '';
  for (const set of seq.valueBlock.value) {
    if (!(set instanceof asn1js.Set)) continue;
    const parts: string[] = [];
    for (const atv of set.valueBlock.value) {
      if (!(atv instanceof asn1js.Sequence) || atv.valueBlock.value.length !== 2) continue;
      const [type, value] = atv.valueBlock.value;
      if (!(type instanceof asn1js.ObjectIdentifier)) continue;
      const typeOid = type.valueBlock.toString();
      parts.push(`${attributeNames[typeOid] ?? typeOid}=${escapeRdnValue(attributeValueString(value))}`);
    }
    rdns.push(parts.join('+'));
  }
  return rdns.reverse().join(',');
}

function attributeValues(name: pkijs.RelativeDistinguishedNames, type: string): string[] {
  return name.typesAndValues.filter((tv) => tv.type === type).map((tv) => attributeValueString(tv.value));
}

function parseOrThrow(der: Uint8Array, options: ParseCertificateOptions): ParsedCertificate {
  if (!isSingleDerElement(der)) fail('x509: malformed certificate');
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset !== der.byteLength) fail('x509: malformed certificate');
  let cert: pkijs.Certificate;
  try {
    cert = new pkijs.Certificate({ schema: asn1.result });
  } catch {
    fail('x509: malformed certificate');
  }
  if (cert.version < 0 || cert.version > 2) fail('x509: invalid version');
  const serial = cert.serialNumber.valueBlock.valueHexView;
  if (serial.length > 0 && (serial[0] & 0x80) !== 0) fail('x509: negative serial number');
  if (cert.signature.algorithmId !== cert.signatureAlgorithm.algorithmId) {
    fail('x509: inner and outer signature algorithm identifiers don\'t match');
  }
  const notBefore = cert.notBefore.value;
  const notAfter = cert.notAfter.value;
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) fail('x509: malformed validity');
  const publicKey = parsePublicKey(cert.subjectPublicKeyInfo);

  let basicConstraints: BasicConstraints = { present: false, ca: false };
  let keyUsage: KeyUsage[] | undefined;
  let extKeyUsage: string[] | undefined;
  let dnsNames: string[] = [];
  let ipAddresses: string[] = [];
  const extensions = cert.extensions ?? [];
  if (extensions.length > 0 && cert.version !== 2) fail('x509: extensions in a non-v3 certificate');
  const seen = new Set<string>();
  for (const extension of extensions) {
    if (seen.has(extension.extnID)) fail('x509: certificate contains duplicate extensions');
    seen.add(extension.extnID);
    const value = extension.extnValue.valueBlock.valueHexView;
    switch (extension.extnID) {
      case oid.basicConstraints:
        basicConstraints = parseBasicConstraints(value);
        break;
      case oid.keyUsage:
        keyUsage = parseKeyUsage(value);
        break;
      case oid.extKeyUsage:
        extKeyUsage = parseExtKeyUsage(value);
        break;
      case oid.subjectAltName:
        ({ dnsNames, ipAddresses } = parseSubjectAltNames(value));
        break;
      default:
        break;
    }
  }
  const minimal = options.minimal === true;
  const serialHex = hex(serial).replace(/^(00)+(?=.)/, '').replace(/^0(?=.)/, '');
  const commonNames = minimal ? [] : attributeValues(cert.subject, oid.commonName);
  const certificate: ParsedCertificate = {
    version: cert.version + 1,
    serialNumber: serialHex === '' ? '0' : serialHex,
    subject: minimal ? '' : nameString(cert.subject),
    issuer: minimal ? '' : nameString(cert.issuer),
    ...(commonNames.length > 0 ? { subjectCommonName: commonNames[0] } : {}),
    subjectOrganizations: minimal ? [] : attributeValues(cert.subject, oid.organization),
    notBefore,
    notAfter,
    publicKey,
    sha256Fingerprint: minimal ? '' : createHash('sha256').update(der).digest('hex'),
    basicConstraints,
    ...(keyUsage !== undefined ? { keyUsage } : {}),
    ...(extKeyUsage !== undefined ? { extKeyUsage } : {}),
    dnsNames,
    ipAddresses,
    der,
  };
  return certificate;
}

/**
 * Parses a DER X.509 certificate as strictly as Go's x509.ParseCertificate on the points that
 * matter for trust anchors (DER only, no trailing data, v1–v3, non-negative serial, matching
 * signature algorithms, well-formed and non-repeated extensions, a usable public key).
 * Never throws: hostile bytes give `{ ok: false, error }`.
 */
export function parseCertificate(der: Uint8Array, options: ParseCertificateOptions = {}): CertificateParseResult {
  try {
    return { ok: true, certificate: parseOrThrow(der, options) };
  } catch (error) {
    if (error instanceof CertificateError) return { ok: false, error: error.message };
    // asn1js and pkijs throw assorted errors on hostile structures; all of them mean "not X.509".
    return { ok: false, error: 'x509: malformed certificate' };
  }
}
