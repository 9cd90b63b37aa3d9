import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import { X509ParseError, fail, hex, isContextTag, isInteger, sequenceItems } from './asn1-reader.js';
import { parseAsn1Time } from './asn1-time.js';
import { parseBasicConstraints, parseExtKeyUsage, parseKeyUsage, parseSubjectAltNames } from './certificate-extensions.js';
import type { BasicConstraints, KeyUsage } from './certificate-extensions.js';
import { isSingleDerElement } from './der.js';
import { parseName } from './distinguished-name.js';
import { parsePublicKey } from './public-key.js';
import type { PublicKeyInfo } from './public-key.js';

export type { BasicConstraints, KeyUsage } from './certificate-extensions.js';
export type { PublicKeyAlgorithm, PublicKeyInfo } from './public-key.js';

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
} as const;

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
    if (!isInteger(v)) fail('x509: malformed version');
    version = v.valueBlock.valueDec;
    i++;
  }
  if (version < 0 || version > 2) fail('x509: invalid version');
  const serialNode = fields[i++];
  if (!isInteger(serialNode)) fail('x509: malformed serial number');
  const serial = serialNode.valueBlock.valueHexView;
  if (serial.length > 0 && (serial[0] & 0x80) !== 0) fail('x509: negative serial number');
  const innerAlgorithm = fields[i++];
  algorithmOid(innerAlgorithm, 'x509: malformed signature algorithm identifier');
  algorithmOid(signatureAlgorithm, 'x509: malformed algorithm identifier');
  // Go compares the two AlgorithmIdentifiers byte for byte, parameters included.
  if (Buffer.compare(innerAlgorithm.valueBeforeDecodeView, signatureAlgorithm.valueBeforeDecodeView) !== 0) {
    fail("x509: inner and outer signature algorithm identifiers don't match");
  }
  const minimal = options.minimal === true;
  const issuer = parseName(fields[i++], !minimal);
  const [notBeforeNode, notAfterNode] = sequenceItems(fields[i++], 2, 2, 'x509: malformed validity');
  const notBefore = parseAsn1Time(notBeforeNode);
  const notAfter = parseAsn1Time(notAfterNode);
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
    if (error instanceof X509ParseError) return { ok: false, error: error.message };
    // asn1js and pkijs throw assorted errors on hostile structures; all of them mean "not X.509".
    return { ok: false, error: 'x509: malformed certificate' };
  }
}
