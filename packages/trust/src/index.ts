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
