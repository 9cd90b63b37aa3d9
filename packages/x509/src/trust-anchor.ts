import { X509Certificate } from 'node:crypto';
import { parseCertificate } from './certificate.js';

/** What a trust-anchor tool shows about one certificate of a bundle. */
export interface TrustAnchor {
  /** RFC 4514 string, last RDN first, as Go's `pkix.Name.String` prints it (`CN=root,O=Example`). */
  readonly subject: string;
  readonly issuer: string;
  /** SHA-256 of the DER encoding, lowercase hex (`openssl x509 -fingerprint -sha256`, without colons). */
  readonly sha256: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** The subject equals the issuer and the signature verifies with the certificate's own key. */
  readonly selfSigned: boolean;
  /** basicConstraints with cA set (what ClusterTrustBundle validation demands). */
  readonly ca: boolean;
}

interface AnchorFacts {
  readonly subject: string;
  readonly issuer: string;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly selfSigned: boolean;
  readonly ca: boolean;
}

/**
 * Parsed facts by SHA-256, least recently used first. Parsing costs ~0.3 ms per certificate
 * (asn1js plus a native signature check for self-issued ones); a bundle seen again, or a signer's
 * other bundles sharing anchors, cost a hash and a lookup. Bounded (docs/operations.md).
 */
export const maxCachedTrustAnchors = 10_000;
const cache = new Map<string, AnchorFacts | null>();

function selfSignatureVerifies(der: Uint8Array): boolean {
  try {
    const cert = new X509Certificate(der);
    return cert.verify(cert.publicKey);
  } catch {
    // Keys or algorithms OpenSSL cannot use here: not verifiable, so not shown as self-signed.
    return false;
  }
}

function factsOf(der: Uint8Array): AnchorFacts | null {
  const parsed = parseCertificate(der, { minimal: false });
  if (!parsed.ok) return null;
  const c = parsed.certificate;
  return {
    subject: c.subject,
    issuer: c.issuer,
    notBefore: c.notBefore.getTime(),
    notAfter: c.notAfter.getTime(),
    selfSigned: c.subject === c.issuer && selfSignatureVerifies(der),
    ca: c.basicConstraints.ca,
  };
}

/**
 * The anchor facts of one DER certificate whose SHA-256 (hex) is `sha256`, or undefined when it
 * does not parse as X.509. Each distinct certificate is parsed once while it stays in the cache;
 * every call returns a fresh object.
 */
export function describeTrustAnchor(der: Uint8Array, sha256: string): TrustAnchor | undefined {
  let facts = cache.get(sha256);
  if (facts === undefined) {
    facts = factsOf(der);
    if (cache.size >= maxCachedTrustAnchors) cache.delete(cache.keys().next().value as string);
  } else {
    cache.delete(sha256);
  }
  cache.set(sha256, facts);
  if (facts === null) return undefined;
  return {
    subject: facts.subject,
    issuer: facts.issuer,
    sha256,
    notBefore: new Date(facts.notBefore),
    notAfter: new Date(facts.notAfter),
    selfSigned: facts.selfSigned,
    ca: facts.ca,
  };
}

/** How an anchor's validity period stands at `now`. */
export type TrustAnchorValidity = 'expired' | 'not-yet-valid' | 'expires-soon' | 'valid';

/**
 * `expired` after notAfter, `not-yet-valid` before notBefore, `expires-soon` when notAfter falls
 * within `soonMs` of `now` (inclusive), else `valid`. Go's verifier rejects a certificate when
 * now is after notAfter or before notBefore; both bounds themselves are still valid.
 */
export function trustAnchorValidity(anchor: Pick<TrustAnchor, 'notBefore' | 'notAfter'>, options: { now?: Date | number; soonMs?: number } = {}): TrustAnchorValidity {
  const now = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  if (now > anchor.notAfter.getTime()) return 'expired';
  if (now < anchor.notBefore.getTime()) return 'not-yet-valid';
  if (options.soonMs !== undefined && anchor.notAfter.getTime() - now <= options.soonMs) return 'expires-soon';
  return 'valid';
}
