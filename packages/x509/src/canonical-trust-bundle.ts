import { encodePem, readPemEntries } from './pem.js';

/**
 * Merges trust bundles into the form a node agent projects into pods: every CERTIFICATE block of
 * every input, PEM headers and text outside blocks dropped, each certificate once (compared by
 * DER bytes), ordered by DER bytes, re-encoded with 64-column lines.
 *
 * The kubelet does the same (decode, dedupe by DER, sort) and then shuffles once per restart; we
 * keep the sorted order so the output is a pure function of the set of certificates. Blocks of
 * other types and malformed blocks are left out (validation keeps them out of stored bundles).
 */
export function canonicalizeTrustBundle(pems: readonly string[]): string {
  const unique = new Map<string, Buffer>();
  for (const pem of pems) {
    if (typeof pem !== 'string') continue;
    for (const entry of readPemEntries(pem)) {
      if (entry.kind !== 'block' || entry.type !== 'CERTIFICATE' || entry.bytes.length === 0) continue;
      const der = Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength);
      const key = der.toString('latin1');
      if (!unique.has(key)) unique.set(key, der);
    }
  }
  return [...unique.values()]
    .sort(Buffer.compare)
    .map((der) => encodePem('CERTIFICATE', der))
    .join('');
}
