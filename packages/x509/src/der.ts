/**
 * A DER well-formedness check. asn1js also accepts BER (indefinite lengths, non-minimal length
 * octets); Go's crypto/x509, which Kubernetes validates with, accepts only DER. Walking the
 * TLV structure once keeps us as strict as Go without re-encoding the certificate.
 */

const maxDepth = 64;

/**
 * Returns the offset just past the DER element starting at `start`, or -1 when the element is not
 * well-formed DER (or does not fit in `end`). Constructed elements are checked recursively.
 */
function derElementEnd(der: Uint8Array, start: number, end: number, depth: number): number {
  if (depth > maxDepth || start >= end) return -1;
  let pos = start;
  const identifier = der[pos++];
  if ((identifier & 0x1f) === 0x1f) {
    // High tag number form: base-128, no leading 0x80 octet, and only for tags >= 31.
    if (pos >= end || der[pos] === 0x80) return -1;
    let tag = 0;
    for (;;) {
      if (pos >= end) return -1;
      const b = der[pos++];
      tag = tag * 128 + (b & 0x7f);
      if (tag > 0x7fffffff) return -1;
      if ((b & 0x80) === 0) break;
    }
    if (tag < 31) return -1;
  }
  // DER fixes the form of universal types (X.690 10.2): SEQUENCE and SET are constructed, the
  // others a certificate holds (INTEGER, BIT/OCTET STRING, OID, strings, times...) primitive. Go
  // reads each by its exact tag byte, so a primitive SEQUENCE or a constructed string is no match.
  if ((identifier & 0xc0) === 0 && (identifier & 0x1f) !== 0x1f) {
    const tag = identifier & 0x1f;
    const constructed = (identifier & 0x20) !== 0;
    const mustBeConstructed = tag === 16 || tag === 17;
    const either = tag === 8 || tag === 11 || tag === 29;
    if (!either && constructed !== mustBeConstructed) return -1;
  }
  if (pos >= end) return -1;
  const first = der[pos++];
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const octets = first & 0x7f;
    // 0x80 is BER's indefinite length; DER needs the minimal number of length octets.
    if (octets === 0 || octets > 4 || pos + octets > end || der[pos] === 0) return -1;
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[pos++];
    if (length < 0x80) return -1;
  }
  const contentEnd = pos + length;
  if (contentEnd > end) return -1;
  if ((identifier & 0x20) !== 0) {
    let child = pos;
    while (child < contentEnd) {
      child = derElementEnd(der, child, contentEnd, depth + 1);
      if (child < 0) return -1;
    }
  }
  return contentEnd;
}

/** Whether `der` is exactly one well-formed DER element, with nothing after it. */
export function isSingleDerElement(der: Uint8Array): boolean {
  return der.length > 0 && derElementEnd(der, 0, der.length, 0) === der.length;
}
