import { X509Certificate } from 'node:crypto';

/** Extended key usage OIDs (RFC 5280 4.2.1.12). */
export const extKeyUsageClientAuth = '1.3.6.1.5.5.7.3.2';
const extKeyUsageAny = '2.5.29.37.0';
const maxChainLength = 10;

export type ChainVerificationErrorCode =
  | 'ERR_UNKNOWN_AUTHORITY'
  | 'ERR_EXPIRED'
  | 'ERR_INCOMPATIBLE_USAGE'
  | 'ERR_NOT_CA'
  | 'ERR_MALFORMED';

/** Why a certificate did not verify; messages follow Go's crypto/x509 wording, as Kubernetes logs them. */
export class ChainVerificationError extends Error {
  readonly code: ChainVerificationErrorCode;
  constructor(code: ChainVerificationErrorCode, message: string) {
    super(message);
    this.name = 'ChainVerificationError';
    this.code = code;
  }
}

export interface VerifyChainOptions {
  /** Untrusted certificates the peer sent after its leaf, usable as intermediates. */
  intermediates?: readonly X509Certificate[];
  /** Trust anchors (the client CA bundle). */
  roots: readonly X509Certificate[];
  /** Extended key usage every certificate of the chain must permit (when it lists any). */
  keyUsage?: string;
  now?: Date;
}

function validityWindow(cert: X509Certificate): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
}

function checkValidity(cert: X509Certificate, now: Date): ChainVerificationError | undefined {
  const { notBefore, notAfter } = validityWindow(cert);
  if (now.getTime() < notBefore.getTime()) {
    return new ChainVerificationError(
      'ERR_EXPIRED',
      `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(notBefore)}`,
    );
  }
  if (now.getTime() > notAfter.getTime()) {
    return new ChainVerificationError(
      'ERR_EXPIRED',
      `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(notAfter)}`,
    );
  }
  return undefined;
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function permitsUsage(cert: X509Certificate, usage: string): boolean {
  // Node exposes the extended key usage OIDs as `keyUsage`; no extension means any usage.
  const ekus = cert.keyUsage as string[] | undefined;
  if (!ekus || ekus.length === 0) return true;
  return ekus.includes(usage) || ekus.includes(extKeyUsageAny);
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  if (!child.checkIssued(parent)) return false;
  try {
    return child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/**
 * Builds and verifies a chain from `leaf` to one of `roots`, as Go's x509.Certificate.Verify does
 * for Kubernetes' client-certificate authenticator: signatures, validity periods, the CA flag of
 * every issuer and the requested extended key usage along the whole chain.
 * Returns the chain (leaf first, root last).
 */
export function verifyCertificateChain(leaf: X509Certificate, opts: VerifyChainOptions): X509Certificate[] {
  const now = opts.now ?? new Date();
  const expired = checkValidity(leaf, now);
  if (expired) throw expired;
  const intermediates = opts.intermediates ?? [];
  const rootPrints = new Set(opts.roots.map((r) => r.fingerprint256));
  let lastError: ChainVerificationError | undefined;

  const build = (cert: X509Certificate, visited: Set<string>): X509Certificate[] | undefined => {
    if (visited.size > maxChainLength) return undefined;
    if (rootPrints.has(cert.fingerprint256)) return [cert];
    for (const root of opts.roots) {
      if (!issuedBy(cert, root)) continue;
      if (!root.ca) {
        lastError = new ChainVerificationError('ERR_NOT_CA', 'x509: certificate is not authorized to sign other certificates');
        continue;
      }
      const rootExpired = checkValidity(root, now);
      if (rootExpired) {
        lastError = rootExpired;
        continue;
      }
      return [cert, root];
    }
    for (const candidate of intermediates) {
      if (visited.has(candidate.fingerprint256) || !issuedBy(cert, candidate)) continue;
      if (!candidate.ca) {
        lastError = new ChainVerificationError('ERR_NOT_CA', 'x509: certificate is not authorized to sign other certificates');
        continue;
      }
      const candidateExpired = checkValidity(candidate, now);
      if (candidateExpired) {
        lastError = candidateExpired;
        continue;
      }
      const rest = build(candidate, new Set([...visited, candidate.fingerprint256]));
      if (rest) return [cert, ...rest];
    }
    return undefined;
  };

  const chain = build(leaf, new Set([leaf.fingerprint256]));
  if (!chain) {
    throw lastError ?? new ChainVerificationError('ERR_UNKNOWN_AUTHORITY', 'x509: certificate signed by unknown authority');
  }
  if (opts.keyUsage && !chain.every((c) => permitsUsage(c, opts.keyUsage!))) {
    throw new ChainVerificationError('ERR_INCOMPATIBLE_USAGE', 'x509: certificate specifies an incompatible key usage');
  }
  return chain;
}

/** Splits a PEM bundle into certificates; throws ChainVerificationError('ERR_MALFORMED') on bad content. */
export function parseCertificateBundle(pem: string | Buffer): X509Certificate[] {
  const text = typeof pem === 'string' ? pem : pem.toString('utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    throw new ChainVerificationError('ERR_MALFORMED', 'data does not contain any valid RSA or ECDSA certificates');
  }
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new ChainVerificationError('ERR_MALFORMED', `certificate ${i + 1} of the bundle does not parse: ${(err as Error).message}`);
    }
  });
}
