import { hash } from 'node:crypto';
import { encodePem, readPemEntries } from './pem.js';
import { describeTrustAnchor, type TrustAnchor } from './trust-anchor.js';

/** One certificate of a bundle: its DER bytes and their SHA-256 (lowercase hex). */
export interface BundleCertificate {
  readonly der: Uint8Array;
  readonly sha256: string;
}

/** A set of trust anchors in the one form every consumer writes and compares. */
export interface CanonicalTrustBundle {
  /**
   * Each certificate once (same DER), ordered by the SHA-256 of its DER, as header-free
   * CERTIFICATE blocks with 64-column lines and nothing between them; '' for no certificate.
   */
  readonly pem: string;
  /** SHA-256 of `pem` (UTF-8), lowercase hex: equal digests mean equal anchor sets. */
  readonly digest: string;
  /** One per certificate of `pem`, in the same order. */
  readonly anchors: readonly TrustAnchor[];
  /** The earliest notAfter of the anchors; undefined when there is none. */
  readonly earliestNotAfter?: Date;
}

// One-shot hashing (Node 20.12+): several times cheaper than createHash() for a certificate's few hundred bytes.
const sha256Hex = (data: Uint8Array | string) => hash('sha256', data, 'hex');

/**
 * The CERTIFICATE blocks of a PEM text in input order, decoded and hashed. Headers, text outside
 * blocks, other block types and blocks that do not decode are skipped. Never throws.
 */
export function readBundleCertificates(pem: string): BundleCertificate[] {
  if (typeof pem !== 'string') return [];
  const out: BundleCertificate[] = [];
  for (const entry of readPemEntries(pem)) {
    if (entry.kind !== 'block' || entry.type !== 'CERTIFICATE' || entry.bytes.length === 0) continue;
    out.push({ der: entry.bytes, sha256: sha256Hex(entry.bytes) });
  }
  return out;
}

/**
 * Merges bundles into their canonical form (spec 2.1 rule 4: consumers may reorder, deduplicate
 * and drop headers and text between blocks). Inputs are PEM texts or certificates already read
 * with `readBundleCertificates` (a watcher keeps those per object and re-merges cheaply).
 *
 * The kubelet projects the same set (decode, dedupe by DER) but shuffles it once per restart; we
 * sort by SHA-256 so the output, and its digest, is a pure function of the set. Certificates that
 * do not parse as X.509 are left out (validation keeps them out of stored bundles).
 */
export function canonicalTrustBundle(bundles: readonly (string | readonly BundleCertificate[])[]): CanonicalTrustBundle {
  const unique = new Map<string, BundleCertificate>();
  for (const bundle of bundles) {
    // Untyped callers may pass anything: only strings and arrays count.
    const certs = typeof bundle === 'string' ? readBundleCertificates(bundle) : Array.isArray(bundle) ? bundle : [];
    for (const cert of certs) {
      if (!unique.has(cert.sha256)) unique.set(cert.sha256, cert);
    }
  }
  // Equal SHA-256 means equal DER (a collision is not a practical concern); hex sorts as bytes.
  const sorted = [...unique.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
  const anchors: TrustAnchor[] = [];
  let pem = '';
  let earliest: number | undefined;
  for (const cert of sorted) {
    const anchor = describeTrustAnchor(cert.der, cert.sha256);
    if (anchor === undefined) continue;
    anchors.push(anchor);
    pem += encodePem('CERTIFICATE', cert.der);
    const notAfter = anchor.notAfter.getTime();
    if (earliest === undefined || notAfter < earliest) earliest = notAfter;
  }
  return { pem, digest: sha256Hex(pem), anchors, ...(earliest === undefined ? {} : { earliestNotAfter: new Date(earliest) }) };
}

/**
 * The anchors of one bundle (deduplicated, in canonical order) and their earliest notAfter: what
 * the server needs for expiry warnings, the wide table and per-signer metrics.
 */
export function trustAnchorFacts(pem: string): { anchors: readonly TrustAnchor[]; earliestNotAfter?: Date } {
  const { anchors, earliestNotAfter } = canonicalTrustBundle([pem]);
  return earliestNotAfter === undefined ? { anchors } : { anchors, earliestNotAfter };
}
