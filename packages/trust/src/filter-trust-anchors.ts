import { canonicalTrustBundle, readBundleCertificates, type TrustAnchor } from '@plat/x509';
import type { TrustAnchors } from './trust-anchors.js';

/** What a consumer leaves out of, or warns about in, the anchors it writes. The server never filters. */
export interface TrustAnchorFilter {
  /** Leave out anchors whose notAfter has passed (each named in a warning). */
  excludeExpired?: boolean;
  /** Warn about anchors that expire within this many milliseconds (nothing is left out for it); 0 or absent: no warning. */
  minRemainingMs?: number;
}

export interface FilteredTrustAnchors {
  /** The anchors to write: canonical again (pem, digest) over what is kept; sources unchanged. */
  anchors: TrustAnchors;
  /** Left out as expired. */
  excluded: TrustAnchor[];
  /** Kept, but expiring within `minRemainingMs`, earliest first. */
  expiringSoon: TrustAnchor[];
  /** One line per excluded or expiring anchor, naming it. */
  warnings: string[];
  /** When the result changes without any change of the anchors (the next kept anchor expires), when excluding expired ones. */
  nextExpiry?: Date;
}

const name = (a: TrustAnchor) => `"${a.subject}" (sha256 ${a.sha256.slice(0, 16)})`;
// RFC 3339 as the rest of the trust texts print it (seconds, Z).
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Applies a consumer's filter at `now`. Without `excludeExpired` the anchors are returned as they
 * are (same object).
 */
export function filterTrustAnchors(anchors: TrustAnchors, filter: TrustAnchorFilter = {}, now: Date | number = Date.now()): FilteredTrustAnchors {
  const at = typeof now === 'number' ? now : now.getTime();
  const expired = (a: TrustAnchor) => a.notAfter.getTime() < at;
  const excluded = filter.excludeExpired ? anchors.anchors.filter(expired) : [];
  let kept = anchors;
  if (excluded.length > 0) {
    const certs = readBundleCertificates(anchors.pem).filter((_c, i) => !expired(anchors.anchors[i]));
    const canonical = canonicalTrustBundle([certs]);
    kept = { pem: canonical.pem, digest: canonical.digest, anchors: canonical.anchors, sources: anchors.sources };
  }
  const within = filter.minRemainingMs ?? 0;
  const expiringSoon = within > 0 ? kept.anchors.filter((a) => a.notAfter.getTime() - at <= within).sort((a, b) => a.notAfter.getTime() - b.notAfter.getTime()) : [];
  const warnings = [
    ...excluded.map((a) => `trust anchor ${name(a)} expired at ${rfc3339(a.notAfter)}: left out`),
    ...expiringSoon.map((a) =>
      expired(a) ? `trust anchor ${name(a)} expired at ${rfc3339(a.notAfter)}` : `trust anchor ${name(a)} expires at ${rfc3339(a.notAfter)}, within the minimum remaining time`,
    ),
  ];
  const future = filter.excludeExpired ? kept.anchors.map((a) => a.notAfter.getTime()).filter((t) => t >= at) : [];
  return { anchors: kept, excluded, expiringSoon, warnings, ...(future.length ? { nextExpiry: new Date(Math.min(...future) + 1) } : {}) };
}
