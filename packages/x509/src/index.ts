export type { PemBlock, PemEntry, PemMalformedEntry, PemMalformedReason } from './pem.js';
export { readPemEntries, decodePemBase64, encodePem } from './pem.js';
export type { PemBundle, PemBundleProblem, PemBundleProblemKind } from './pem-bundle.js';
export { readPemBundle } from './pem-bundle.js';
export type {
  BasicConstraints,
  CertificateParseResult,
  KeyUsage,
  ParseCertificateOptions,
  ParsedCertificate,
  PublicKeyAlgorithm,
  PublicKeyInfo,
} from './certificate.js';
export { parseCertificate } from './certificate.js';
export type { TrustBundleFinding, TrustBundleFindingKind, ValidateTrustBundleOptions } from './trust-bundle.js';
export { maxTrustBundleSize, validateTrustBundle } from './trust-bundle.js';
export type { BundleCertificate, CanonicalTrustBundle } from './canonical-trust-bundle.js';
export { canonicalTrustBundle, readBundleCertificates, trustAnchorFacts } from './canonical-trust-bundle.js';
export type { TrustAnchor, TrustAnchorValidity } from './trust-anchor.js';
export { describeTrustAnchor, maxCachedTrustAnchors, trustAnchorValidity } from './trust-anchor.js';
export type { CertificateTemplate, PemKeyPair } from './dev-pki.js';
export {
  DevPkiError,
  createCertificate,
  createCertificateAuthority,
  extKeyUsageOid,
  issueClientCertificate,
  issueServingCertificate,
} from './dev-pki.js';
