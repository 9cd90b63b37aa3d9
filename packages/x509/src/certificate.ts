import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
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
  /** RFC 4514 string of the subject: RDNs in reverse encoding order, multi-valued RDNs joined by "+". */
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
        for (const c of raw) if (c > 0x7f) fail('x509: SAN dNSName is malformed');
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

function parsePublicKey(spki: asn1js.AsnType): PublicKeyInfo {
  const [algorithm, subjectPublicKey] = sequenceItems(spki, 2, 2, 'x509: malformed spki');
  const [algorithmId, params] = sequenceItems(algorithm, 1, 2, 'x509: malformed spki algorithm identifier');
  if (!(algorithmId instanceof asn1js.ObjectIdentifier) || !(subjectPublicKey instanceof asn1js.BitString)) fail('x509: malformed spki');
  if (subjectPublicKey.valueBlock.unusedBits !== 0) fail('x509: malformed spki');
  const algorithmOid = algorithmId.valueBlock.toString();
  const key = subjectPublicKey.valueBlock.valueHexView;
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

interface NameInfo {
  readonly text: string;
  readonly commonNames: string[];
  readonly organizations: string[];
}

function parseName(name: asn1js.AsnType, wantText: boolean): NameInfo {
  if (!(name instanceof asn1js.Sequence)) fail('x509: invalid RDNSequence');
  const rdns: string[] = [];
  const commonNames: string[] = [];
  const organizations: string[] = [];
  for (const set of name.valueBlock.value) {
    if (!(set instanceof asn1js.Set)) fail('x509: invalid RDNSequence');
    const parts: string[] = [];
    for (const atv of set.valueBlock.value) {
      const [type, value] = sequenceItems(atv, 2, 2, 'x509: invalid RDNSequence: invalid attribute');
      if (!(type instanceof asn1js.ObjectIdentifier)) fail('x509: invalid RDNSequence: invalid attribute type');
      const typeOid = type.valueBlock.toString();
      const text = attributeValueString(value);
      if (typeOid === oid.commonName) commonNames.push(text);
      else if (typeOid === oid.organization) organizations.push(text);
      if (wantText) parts.push(`${attributeNames[typeOid] ?? typeOid}=${escapeRdnValue(text)}`);
    }
    if (wantText) rdns.push(parts.join('+'));
  }
  // RFC 4514 section 2.1: the last RDN of the sequence comes first.
  return { text: rdns.reverse().join(','), commonNames, organizations };
}

/** The children of a SEQUENCE, checking their count. */
function sequenceItems(node: asn1js.AsnType | undefined, min: number, max: number, error: string): asn1js.AsnType[] {
  if (!(node instanceof asn1js.Sequence)) fail(error);
  const items = node.valueBlock.value;
  if (items.length < min || items.length > max) fail(error);
  return items;
}

function isContextTag(node: asn1js.AsnType | undefined, tag: number): boolean {
  return node !== undefined && node.idBlock.tagClass === 3 && node.idBlock.tagNumber === tag;
}

function parseTime(node: asn1js.AsnType | undefined): Date {
  if (!(node instanceof asn1js.UTCTime) && !(node instanceof asn1js.GeneralizedTime)) fail('x509: malformed validity');
  const date = node.toDate();
  if (Number.isNaN(date.getTime())) fail('x509: malformed validity');
  return date;
}

function algorithmOid(node: asn1js.AsnType | undefined, error: string): string {
  const [id] = sequenceItems(node, 1, 2, error);
  if (!(id instanceof asn1js.ObjectIdentifier)) fail(error);
  return id.valueBlock.toString();
}

function parseOrThrow(der: Uint8Array, options: ParseCertificateOptions): ParsedCertificate {
  if (!isSingleDerElement(der)) fail('x509: malformed certificate');
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset !== der.byteLength) fail('x509: malformed certificate');
  const [tbs, signatureAlgorithm, signatureValue] = sequenceItems(asn1.result, 3, 3, 'x509: malformed certificate');
  if (!(signatureValue instanceof asn1js.BitString)) fail('x509: malformed signature');
  const fields = sequenceItems(tbs, 6, 10, 'x509: malformed tbs certificate');
  let i = 0;
  let version = 0;
  if (isContextTag(fields[0], 0)) {
    const [v] = (fields[0] as asn1js.Constructed).valueBlock.value;
    if (!(v instanceof asn1js.Integer)) fail('x509: malformed version');
    version = v.valueBlock.valueDec;
    i++;
  }
  if (version < 0 || version > 2) fail('x509: invalid version');
  const serialNode = fields[i++];
  if (!(serialNode instanceof asn1js.Integer)) fail('x509: malformed serial number');
  const serial = serialNode.valueBlock.valueHexView;
  if (serial.length > 0 && (serial[0] & 0x80) !== 0) fail('x509: negative serial number');
  const innerAlgorithm = algorithmOid(fields[i++], 'x509: malformed signature algorithm identifier');
  if (innerAlgorithm !== algorithmOid(signatureAlgorithm, 'x509: malformed algorithm identifier')) {
    fail("x509: inner and outer signature algorithm identifiers don't match");
  }
  const minimal = options.minimal === true;
  const issuer = parseName(fields[i++], !minimal);
  const [notBeforeNode, notAfterNode] = sequenceItems(fields[i++], 2, 2, 'x509: malformed validity');
  const notBefore = parseTime(notBeforeNode);
  const notAfter = parseTime(notAfterNode);
  const subject = parseName(fields[i++], !minimal);
  if (fields[i] === undefined) fail('x509: malformed spki');
  const publicKey = parsePublicKey(fields[i++]);
  // issuerUniqueID [1] and subjectUniqueID [2] are only defined from v2 on.
  if (isContextTag(fields[i], 1)) {
    if (version < 1) fail('x509: malformed issuerUniqueID');
    i++;
  }
  if (isContextTag(fields[i], 2)) {
    if (version < 1) fail('x509: malformed subjectUniqueID');
    i++;
  }
  let extensions: asn1js.AsnType[] = [];
  if (isContextTag(fields[i], 3)) {
    if (version !== 2) fail('x509: extensions in a non-v3 certificate');
    const [list] = (fields[i] as asn1js.Constructed).valueBlock.value;
    extensions = sequenceItems(list, 0, Number.MAX_SAFE_INTEGER, 'x509: malformed extensions');
    i++;
  }
  if (i !== fields.length) fail('x509: malformed tbs certificate');

  let basicConstraints: BasicConstraints = { present: false, ca: false };
  let keyUsage: KeyUsage[] | undefined;
  let extKeyUsage: string[] | undefined;
  let dnsNames: string[] = [];
  let ipAddresses: string[] = [];
  const seen = new Set<string>();
  for (const extension of extensions) {
    const items = sequenceItems(extension, 2, 3, 'x509: malformed extension');
    const [id] = items;
    const critical = items.length === 3 ? items[1] : undefined;
    const valueNode = items[items.length - 1];
    if (!(id instanceof asn1js.ObjectIdentifier) || !(valueNode instanceof asn1js.OctetString)) fail('x509: malformed extension');
    if (critical !== undefined && !(critical instanceof asn1js.Boolean)) fail('x509: malformed extension critical field');
    const extnID = id.valueBlock.toString();
    if (seen.has(extnID)) fail('x509: certificate contains duplicate extensions');
    seen.add(extnID);
    const value = valueNode.valueBlock.valueHexView;
    switch (extnID) {
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
  const serialHex = hex(serial).replace(/^0+(?=.)/, '');
  return {
    version: version + 1,
    serialNumber: serialHex,
    subject: subject.text,
    issuer: issuer.text,
    ...(subject.commonNames.length > 0 ? { subjectCommonName: subject.commonNames[0] } : {}),
    subjectOrganizations: subject.organizations,
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
