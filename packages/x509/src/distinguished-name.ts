import * as asn1js from 'asn1js';
import { fail, sequenceItems } from './asn1-reader.js';

const oidCommonName = '2.5.4.3';
const oidOrganization = '2.5.4.10';

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

function escapeRdnValue(value: string): string {
  let out = value.replace(/[\\,+"<>;]/g, (c) => '\\' + c);
  if (out.startsWith(' ') || out.startsWith('#')) out = '\\' + out;
  if (out.endsWith(' ') && !out.endsWith('\\ ')) out = out.slice(0, -1) + '\\ ';
  return out;
}

// Go's isPrintable for x509 names: the PrintableString set plus '*' and '&', which real
// certificates carry (crypto/x509 accepts them for compatibility).
function isGoPrintable(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) ||
    (b >= 0x27 && b <= 0x29) || (b >= 0x2b && b <= 0x2f) ||
    b === 0x20 || b === 0x3a || b === 0x3d || b === 0x3f || b === 0x2a || b === 0x26
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16be = new TextDecoder('utf-16be');

/** The tag octet as Go's cryptobyte prints it (class bits, constructed bit, number). */
function goTag(value: asn1js.AsnType): number {
  const { tagClass, tagNumber, isConstructed } = value.idBlock;
  return ((tagClass - 1) << 6) | (isConstructed ? 0x20 : 0) | tagNumber;
}

/**
 * An attribute value as Go's crypto/x509 parseName reads it (parseASN1String): one of the six
 * string types, primitive, with that type's characters; anything else fails the certificate with
 * Go's message ("x509: invalid RDNSequence: invalid attribute value: ...").
 */
function attributeValueString(value: asn1js.AsnType): string {
  const fault = (why: string) => fail(`x509: invalid RDNSequence: invalid attribute value: ${why}`);
  // cryptobyte reads single-octet tags only (numbers up to 30).
  if (value.idBlock.tagNumber > 30) fail('x509: invalid RDNSequence: invalid attribute value');
  const tag = goTag(value);
  const bytes = (value as { valueBlock: { valueHexView?: Uint8Array } }).valueBlock.valueHexView ?? new Uint8Array(0);
  switch (tag) {
    case 20: // T61String: Go takes the bytes as they are.
      return Buffer.from(bytes).toString('latin1');
    case 19: // PrintableString
      if (!bytes.every(isGoPrintable)) fault('invalid PrintableString');
      return Buffer.from(bytes).toString('latin1');
    case 12: // UTF8String
      try {
        return utf8.decode(bytes);
      } catch {
        return fault('invalid UTF-8 string');
      }
    case 30: {
      // BMPString: UTF-16BE, an optional trailing NUL dropped.
      if (bytes.length % 2 !== 0) fault('invalid BMPString');
      const l = bytes.length;
      return utf16be.decode(l >= 2 && bytes[l - 1] === 0 && bytes[l - 2] === 0 ? bytes.subarray(0, l - 2) : bytes);
    }
    case 22: // IA5String
      if (!bytes.every((b) => b < 0x80)) fault('invalid IA5String');
      return Buffer.from(bytes).toString('latin1');
    case 18: // NumericString
      if (!bytes.every((b) => (b >= 0x30 && b <= 0x39) || b === 0x20)) fault('invalid NumericString');
      return Buffer.from(bytes).toString('latin1');
    default:
      return fault(`unsupported string type: ${tag}`);
  }
}

export interface NameInfo {
  readonly text: string;
  readonly commonNames: string[];
  readonly organizations: string[];
}

export function parseName(name: asn1js.AsnType, wantText: boolean): NameInfo {
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
      if (typeOid === oidCommonName) commonNames.push(text);
      else if (typeOid === oidOrganization) organizations.push(text);
      if (wantText) parts.push(`${attributeNames[typeOid] ?? typeOid}=${escapeRdnValue(text)}`);
    }
    if (wantText) rdns.push(parts.join('+'));
  }
  // RFC 4514 section 2.1: the last RDN of the sequence comes first.
  return { text: rdns.reverse().join(','), commonNames, organizations };
}
