import { X509Certificate } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** What a trust-anchor tool shows about one certificate of a bundle. */
export interface TrustAnchor {
  /**
   * RFC 4514 string, last RDN first, as `openssl x509 -nameopt RFC2253` and Go print it
   * (`CN=root,O=Example`); attributes without a short name in OpenSSL as dotted OIDs.
   */
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
 * Parsed facts by SHA-256, least recently used first. Facts come from node:crypto's
 * X509Certificate (OpenSSL): several times faster than the strict asn1js parser, which validation
 * keeps using, and no asn1js to load for a program that only reports or compares anchors. A bundle
 * seen again costs a hash and a lookup. Bounded (docs/operations.md).
 */
export const maxCachedTrustAnchors = 10_000;
// 'unparsable': remembered too, so a block that is not X.509 is not parsed again.
const cache = new LRUCache<string, AnchorFacts | 'unparsable'>({ max: maxCachedTrustAnchors });

/** OpenSSL's one-RDN-per-line form (Node's `subject`) as RFC 4514: lines reversed, `,` between them, `+` inside. */
function rfc4514(multiline: string): string {
  return multiline
    .split('\n')
    .reverse()
    .map((rdn) => rdn.replaceAll(' + ', '+'))
    .join(',');
}

const months: Readonly<Record<string, number>> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

/** OpenSSL's `Nov 25 19:18:39 2026 GMT` (Node's validFrom/validTo) as milliseconds. */
function opensslTime(text: string): number {
  const m = /^(\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d+) GMT$/.exec(text);
  if (!m || months[m[1]] === undefined) return Number.NaN;
  return Date.UTC(Number(m[6]), months[m[1]], Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
}

function factsOf(der: Uint8Array): AnchorFacts | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    return null;
  }
  const notBefore = opensslTime(cert.validFrom);
  const notAfter = opensslTime(cert.validTo);
  if (Number.isNaN(notBefore) || Number.isNaN(notAfter)) return null;
  let selfSigned = false;
  if (cert.subject === cert.issuer) {
    try {
      selfSigned = cert.verify(cert.publicKey);
    } catch {
      // A key OpenSSL cannot use here: not verifiable, so not shown as self-signed.
    }
  }
  return { subject: rfc4514(cert.subject), issuer: rfc4514(cert.issuer), notBefore, notAfter, selfSigned, ca: cert.ca };
}

/**
 * The anchor facts of one DER certificate whose SHA-256 (hex) is `sha256`, or undefined when it
 * does not parse as X.509. Each distinct certificate is parsed once while it stays in the cache;
 * every call returns a fresh object.
 */
export function describeTrustAnchor(der: Uint8Array, sha256: string): TrustAnchor | undefined {
  let facts = cache.get(sha256);
  if (facts === undefined) {
    facts = factsOf(der) ?? 'unparsable';
    cache.set(sha256, facts);
  }
  if (facts === 'unparsable') return undefined;
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
