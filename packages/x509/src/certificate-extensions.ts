import * as asn1js from 'asn1js';
import { fail, isInteger, parseExtensionValue } from './asn1-reader.js';

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

/** The keyUsage names by bit number (RFC 5280 4.2.1.3). */
export const keyUsageBits: readonly KeyUsage[] = [
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

export function parseBasicConstraints(value: Uint8Array): BasicConstraints {
  const seq = parseExtensionValue(value, 'basic constraints');
  if (!(seq instanceof asn1js.Sequence)) fail('x509: invalid basic constraints');
  const items = seq.valueBlock.value;
  let i = 0;
  let ca = false;
  let pathLen: number | undefined;
  if (items[i] instanceof asn1js.Boolean) {
    // DER booleans are one octet, 0x00 or 0xFF (Go's cryptobyte rejects anything else).
    const octets = (items[i] as asn1js.Boolean).valueBlock.valueHexView;
    if (octets.length !== 1 || (octets[0] !== 0 && octets[0] !== 0xff)) fail('x509: invalid basic constraints');
    ca = octets[0] === 0xff;
    i++;
  }
  if (isInteger(items[i])) {
    const n = (items[i] as asn1js.Integer).valueBlock.valueDec;
    if (n < 0 || !Number.isSafeInteger(n)) fail('x509: invalid basic constraints');
    pathLen = n;
    i++;
  }
  if (i !== items.length) fail('x509: invalid basic constraints');
  return pathLen === undefined ? { present: true, ca } : { present: true, ca, pathLen };
}

export function parseKeyUsage(value: Uint8Array): KeyUsage[] {
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

export function parseExtKeyUsage(value: Uint8Array): string[] {
  const seq = parseExtensionValue(value, 'extended key usages');
  if (!(seq instanceof asn1js.Sequence)) fail('x509: invalid extended key usages');
  return seq.valueBlock.value.map((item) => {
    if (!(item instanceof asn1js.ObjectIdentifier)) fail('x509: invalid extended key usages');
    return item.valueBlock.toString();
  });
}

export function parseSubjectAltNames(value: Uint8Array): { dnsNames: string[]; ipAddresses: string[] } {
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
