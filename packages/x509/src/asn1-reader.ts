import * as asn1js from 'asn1js';
import { isSingleDerElement } from './der.js';

/** Thrown inside the parser only; parseCertificate turns it into `{ ok: false, error }`. */
export class X509ParseError extends Error {}

export function fail(message: string): never {
  throw new X509ParseError(message);
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The children of a SEQUENCE, checking their count. */
export function sequenceItems(node: asn1js.AsnType | undefined, min: number, max: number, error: string): asn1js.AsnType[] {
  if (!(node instanceof asn1js.Sequence)) fail(error);
  const items = node.valueBlock.value;
  if (items.length < min || items.length > max) fail(error);
  return items;
}

/** An INTEGER (universal tag 2): asn1js's Enumerated is a subclass of Integer, Go's ReadASN1Integer takes tag 2 only. */
export function isInteger(node: asn1js.AsnType | undefined): node is asn1js.Integer {
  return node instanceof asn1js.Integer && node.idBlock.tagClass === 1 && node.idBlock.tagNumber === 2;
}

export function isContextTag(node: asn1js.AsnType | undefined, tag: number): boolean {
  return node !== undefined && node.idBlock.tagClass === 3 && node.idBlock.tagNumber === tag;
}

/** Decodes an extension's OCTET STRING contents, which must be exactly one DER element. */
export function parseExtensionValue(value: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(value);
  if (parsed.offset !== value.byteLength || !isSingleDerElement(value)) fail(`x509: invalid ${what}`);
  return parsed.result;
}
