import * as asn1js from 'asn1js';
import { fail, hex, sequenceItems } from './asn1-reader.js';

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

function attributeValueString(value: asn1js.AsnType): string {
  const block = (value as { valueBlock?: { value?: unknown } }).valueBlock;
  if (block !== undefined && typeof block.value === 'string') return block.value;
  return '#' + hex(new Uint8Array(value.toBER(false)));
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
