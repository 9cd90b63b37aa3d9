import { canonicalTrustBundle, readBundleCertificates, type BundleCertificate, type TrustAnchor } from '@plat/x509';
import type { SelectableBundle } from './trust-anchor-selection.js';

/** A ClusterTrustBundle the anchors came from. */
export interface TrustAnchorSource {
  name: string;
  /** The object's resourceVersion when it was read. */
  resourceVersion: string;
  /** '' for a bundle without signer. */
  signerName: string;
}

/** The anchors of a selection, in the canonical form every consumer compares and writes. */
export interface TrustAnchors {
  /** Canonical PEM: each certificate once, sorted by the SHA-256 of its DER, no headers; '' for none. */
  pem: string;
  /** SHA-256 of `pem`, lowercase hex. */
  digest: string;
  /** One per certificate of `pem`, same order. */
  anchors: readonly TrustAnchor[];
  /** The bundles merged, by name. */
  sources: TrustAnchorSource[];
}

/** One bundle as a watcher keeps it: its certificates decoded once per change of spec.trustBundle. */
export interface BundleEntry {
  source: TrustAnchorSource;
  trustBundle: string;
  certificates: readonly BundleCertificate[];
}

export function bundleEntry(bundle: SelectableBundle, previous?: BundleEntry): BundleEntry {
  const trustBundle = typeof bundle.spec?.trustBundle === 'string' ? bundle.spec.trustBundle : '';
  return {
    source: { name: bundle.metadata?.name ?? '', resourceVersion: bundle.metadata?.resourceVersion ?? '', signerName: bundle.spec?.signerName ?? '' },
    trustBundle,
    // A label or metadata change keeps the certificates: only a new trustBundle is decoded again.
    certificates: previous && previous.trustBundle === trustBundle ? previous.certificates : readBundleCertificates(trustBundle),
  };
}

/** Merges bundle entries into the selection's anchors. */
export function trustAnchorsOf(entries: Iterable<BundleEntry>): TrustAnchors {
  const sorted = [...entries].sort((a, b) => (a.source.name < b.source.name ? -1 : a.source.name > b.source.name ? 1 : 0));
  const canonical = canonicalTrustBundle(sorted.map((e) => e.certificates));
  return { pem: canonical.pem, digest: canonical.digest, anchors: canonical.anchors, sources: sorted.map((e) => ({ ...e.source })) };
}
