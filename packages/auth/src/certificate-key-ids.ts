/**
 * Reads the subject and authority key identifiers of a DER certificate. Node's X509Certificate
 * does not expose them, and Kubernetes names a failing client certificate by them
 * (`SN=..., SKID=..., AKID=...`). A minimal DER walk: Certificate → tbsCertificate → [3]
 * extensions → Extension { extnID, critical?, extnValue }.
 */
interface Tlv {
  tag: number;
  start: number; // first content byte
  end: number; // one past the last content byte
}

function readTlv(der: Uint8Array, at: number, limit: number): Tlv | undefined {
  if (at + 2 > limit) return undefined;
  const tag = der[at];
  let len = der[at + 1];
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[p + i];
    p += n;
  }
  if (p + len > limit) return undefined;
  return { tag, start: p, end: p + len };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  let at = parent.start;
  while (at < parent.end) {
    const tlv = readTlv(der, at, parent.end);
    if (!tlv) break;
    out.push(tlv);
    at = tlv.end;
  }
  return out;
}

const oidSubjectKeyId = '551d0e';
const oidAuthorityKeyId = '551d23';

function hexColons(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(':');
}

export function certificateKeyIds(der: Uint8Array): { subjectKeyId: string; authorityKeyId: string } {
  const ids = { subjectKeyId: '', authorityKeyId: '' };
  const cert = readTlv(der, 0, der.length);
  if (!cert) return ids;
  const tbs = children(der, cert)[0];
  if (!tbs) return ids;
  const extsWrapper = children(der, tbs).find((t) => t.tag === 0xa3);
  if (!extsWrapper) return ids;
  const exts = children(der, extsWrapper)[0];
  if (!exts) return ids;
  for (const ext of children(der, exts)) {
    const parts = children(der, ext);
    if (parts.length < 2 || parts[0].tag !== 0x06) continue;
    const oid = Buffer.from(der.subarray(parts[0].start, parts[0].end)).toString('hex');
    const value = parts[parts.length - 1];
    if (value.tag !== 0x04) continue;
    const inner = readTlv(der, value.start, value.end);
    if (!inner) continue;
    if (oid === oidSubjectKeyId && inner.tag === 0x04) {
      ids.subjectKeyId = hexColons(der.subarray(inner.start, inner.end));
    } else if (oid === oidAuthorityKeyId && inner.tag === 0x30) {
      const keyId = children(der, inner).find((t) => t.tag === 0x80);
      if (keyId) ids.authorityKeyId = hexColons(der.subarray(keyId.start, keyId.end));
    }
  }
  return ids;
}
