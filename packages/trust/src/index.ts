export { TrustError, isTrustError, type TrustErrorCode } from './trust-error.js';
export {
  clusterTrustBundlesPath,
  validateTrustAnchorSelection,
  type TrustAnchorSelection,
} from './trust-anchor-selection.js';
export type { TrustAnchorSource, TrustAnchors } from './trust-anchors.js';
export { listChunkSize, resolveTrustAnchors, type ResolveOptions } from './resolve-trust-anchors.js';
export { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';
export type { BackoffOptions } from './backoff.js';
export { trustedSecureContext } from './trusted-secure-context.js';
export { TrustAgent, type TrustAgentOptions } from './trust-agent.js';
export { followTrustAnchors, type FollowTrustAnchorsOptions, type FollowedTrustAnchors } from './follow-trust-anchors.js';
export { readTrustBundleFile, trustBundleFileMode, writeTrustBundleFile } from './trust-bundle-file.js';
export { syncTrustBundleFile, writeTrustBundleFileOnce, type SyncTrustBundleFileOptions } from './sync-trust-bundle-file.js';
export { anchorsExpiringWithin, trustAnchorNotes } from './anchor-notes.js';
export { trustAnchorsFromText } from './trust-anchors-from-text.js';
export {
  expiryTimelineGlyphs,
  expiryTimelineHorizonMs,
  minExpiryTimelineWidth,
  renderExpiryTimeline,
  type ExpiryTimelineOptions,
} from './expiry-timeline.js';
export { encodeTrustAnchors, isTrustAnchorFormat, trustAnchorFormats, type EncodeTrustAnchorsOptions, type TrustAnchorFormat } from './encode-trust-anchors.js';
export { decodeTrustAnchors, type DecodedTrustAnchors } from './decode-trust-anchors.js';
export { truststoreAlias } from './truststore-entries.js';
export { nextSpiffeSequence, defaultSpiffeRefreshHintSeconds, type SpiffeBundle, type SpiffeX509Jwk } from './spiffe-bundle.js';
export { defaultJksPassword } from './jks-truststore.js';
export { filterTrustAnchors, type FilteredTrustAnchors, type TrustAnchorFilter } from './filter-trust-anchors.js';
export { writeTrustAnchorsFile, type TrustAnchorsFileTarget } from './trust-anchors-file.js';
export {
  startSpiffeFederationServer,
  type ServedSpiffeBundle,
  type SpiffeFederationServer,
  type SpiffeFederationServerOptions,
} from './spiffe-federation-server.js';
