import crypto from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import { AuthenticationError, type AuthenticationResult } from '../interface.js';
import type { TokenAuthenticator } from '../token-authenticator.js';
import { ClaimMapper } from './claim-mapper.js';
import { defaultSigningAlgorithms, type JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';
import { OidcKeySet, type OidcKeySetOptions } from './oidc-key-set.js';

export interface JwtAuthenticatorOptions {
  /** Accepted signature algorithms (default: RS*, ES*, PS*, EdDSA). `none` and HMAC are always refused. */
  signingAlgorithms?: string[];
  /** Allowed clock skew for exp / nbf / iat, in seconds (default 10, as go-oidc allows). */
  clockSkewSeconds?: number;
  /** Results are cached per token until expiry, at most this long (default 10 s... 1 h by exp). */
  maxCacheEntries?: number;
  registry?: Registry;
  keySet?: Partial<Omit<OidcKeySetOptions, 'issuerUrl' | 'discoveryUrl' | 'certificateAuthority'>>;
  onError?: (issuer: string, err: Error) => void;
  now?: () => number;
}

interface IssuerAuthenticator {
  spec: JwtAuthenticatorSpec;
  keys: OidcKeySet;
  mapper: ClaimMapper;
}

interface CacheEntry {
  result: AuthenticationResult | Error;
  expiresAt: number;
  /** The issuer that verified the token (the token's bytes include its `iss`). */
  issuer: string;
}

const hmacOrNone = /^(HS\d+|none)$/i;

/**
 * The JWT authenticators of an AuthenticationConfiguration. A token is routed by its (unverified)
 * `iss` to the one authenticator with that issuer URL, which verifies it cryptographically; the
 * unverified payload is used for nothing else. Verified results are cached per token (by SHA-256)
 * until the token expires, so a busy client costs one verification.
 */
export class JwtAuthenticator implements TokenAuthenticator {
  private readonly byIssuer = new Map<string, IssuerAuthenticator>();
  private readonly cache = new Map<string, CacheEntry>();
  private readonly algorithms: string[];
  private readonly validations: Counter<'issuer' | 'result'>;

  constructor(
    specs: readonly JwtAuthenticatorSpec[],
    private readonly opts: JwtAuthenticatorOptions = {},
  ) {
    this.algorithms = (opts.signingAlgorithms ?? defaultSigningAlgorithms).filter((a) => !hmacOrNone.test(a));
    // A reloaded configuration builds a new instance on the same registry: share the series.
    const metricName = 'apiserver_authentication_jwt_authenticator_validations_total';
    const existing = opts.registry?.getSingleMetric(metricName) as Counter<'issuer' | 'result'> | undefined;
    this.validations =
      existing ??
      new Counter({
        name: metricName,
        help: 'JWT validations per issuer and result (success, failure, cached).',
        labelNames: ['issuer', 'result'],
        registers: opts.registry ? [opts.registry] : [],
      });
    for (const spec of specs) {
      const keys = new OidcKeySet({
        ...opts.keySet,
        issuerUrl: spec.issuer.url,
        discoveryUrl: spec.issuer.discoveryURL,
        certificateAuthority: spec.issuer.certificateAuthority,
        onError: (err) => opts.onError?.(spec.issuer.url, err),
      });
      this.byIssuer.set(spec.issuer.url, { spec, keys, mapper: new ClaimMapper(spec) });
    }
  }

  /** Starts discovery and key loading in the background; the server does not wait for it. */
  start(): void {
    for (const a of this.byIssuer.values()) a.keys.start();
  }

  /** Readiness per issuer, for /readyz?verbose: an issuer is ready once its keys have loaded. */
  readiness(): { issuer: string; ready: boolean; error?: string }[] {
    return [...this.byIssuer.values()].map((a) => ({
      issuer: a.spec.issuer.url,
      ready: a.keys.ready,
      error: a.keys.error?.message,
    }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.byIssuer.values()].map((a) => a.keys.close()));
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | null> {
    // A token verified before is answered from the cache by its hash alone: no decoding (this is
    // the path of every request of a busy client).
    const now = this.opts.now?.() ?? Date.now();
    const key = crypto.createHash('sha256').update(token).digest('base64url');
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > now) {
      this.count(cached.issuer, 'cached');
      if (cached.result instanceof Error) throw cached.result;
      return cached.result;
    }

    // Only JWS compact tokens are ours; anything else belongs to another token authenticator.
    if (token.split('.').length !== 3) return null;
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      return null;
    }
    if (typeof issuer !== 'string') return null;
    const authenticator = this.byIssuer.get(issuer);
    if (!authenticator) return null;

    try {
      const result = await this.verify(authenticator, token, now, key);
      this.count(issuer, 'success');
      return result;
    } catch (err) {
      this.count(issuer, 'failure');
      throw err instanceof AuthenticationError ? err : new AuthenticationError((err as Error).message);
    }
  }

  private readonly counters = new Map<string, { inc(): void }>();

  /** Per-issuer children of the validations counter, looked up once. */
  private count(issuer: string, result: 'cached' | 'success' | 'failure'): void {
    const id = `${result} ${issuer}`;
    let child = this.counters.get(id);
    if (!child) {
      child = this.validations.labels({ issuer, result });
      this.counters.set(id, child);
    }
    child.inc();
  }

  private async verify(a: IssuerAuthenticator, token: string, now: number, key: string): Promise<AuthenticationResult> {
    if (!a.keys.ready) throw new AuthenticationError('oidc: authenticator not initialized');
    const { spec } = a;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, a.keys.resolveKey, {
        issuer: spec.issuer.url,
        // MatchAny (the only policy Kubernetes supports): one of the token's audiences must be ours.
        audience: spec.issuer.audiences,
        algorithms: this.algorithms,
        clockTolerance: this.opts.clockSkewSeconds ?? 10,
        requiredClaims: ['exp'],
        currentDate: new Date(now),
      }));
    } catch (err) {
      throw new AuthenticationError(`oidc: verify token: ${verifyErrorText(err, spec)}`);
    }
    const user = a.mapper.map(payload);
    const result: AuthenticationResult = { user, audiences: spec.issuer.audiences };
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : now;
    this.remember(key, { result, expiresAt: Math.min(exp, now + 3_600_000), issuer: spec.issuer.url });
    return result;
  }

  private remember(key: string, entry: CacheEntry): void {
    const max = this.opts.maxCacheEntries ?? 10_000;
    if (this.cache.size >= max) {
      // Drop the oldest entry (Map keeps insertion order).
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, entry);
  }
}

function verifyErrorText(err: unknown, spec: JwtAuthenticatorSpec): string {
  if (err instanceof joseErrors.JWTExpired) return `oidc: token is expired (Token Expiry: ${new Date(Number(err.payload.exp) * 1000).toISOString()})`;
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return `oidc: expected audience in ${JSON.stringify(spec.issuer.audiences)} got ${JSON.stringify(err.payload.aud ?? [])}`;
    if (err.claim === 'iss') return `oidc: id token issued by a different provider, expected ${JSON.stringify(spec.issuer.url)} got ${JSON.stringify(err.payload.iss)}`;
    if (err.claim === 'nbf') return 'oidc: current time is before the nbf (not before) time';
    return `oidc: ${err.message}`;
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return `oidc: id token signed with unsupported algorithm`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'failed to verify signature: failed to verify id token signature';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'failed to verify signature: failed to verify id token signature';
  return (err as Error).message;
}
