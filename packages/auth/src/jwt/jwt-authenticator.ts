import crypto from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { LRUCache } from 'lru-cache';
import { AuthenticationError, type AuthenticationResult } from '../interface.js';
import type { TokenAuthenticator } from '../token-authenticator.js';
import { ClaimMapper } from './claim-mapper.js';
import { DistributedClaimResolver } from './distributed-claims.js';
import { IdTokenVerifier } from './id-token-verifier.js';
import { defaultSigningAlgorithms, type JwtAuthenticatorSpec } from './jwt-authenticator-spec.js';
import { OidcKeySet, type OidcKeySetOptions } from './oidc-key-set.js';
import { untrustedIssuer } from './untrusted-issuer.js';

export interface JwtAuthenticatorOptions {
  /** Accepted signature algorithms (default: RS*, ES*, PS*, EdDSA). `none` and HMAC are always refused. */
  signingAlgorithms?: string[];
  /** How many verified tokens are remembered (default 10,000; the least recently used is dropped first). */
  maxCacheEntries?: number;
  registry?: Registry;
  keySet?: Partial<Omit<OidcKeySetOptions, 'issuerUrl' | 'discoveryUrl' | 'certificateAuthority'>>;
  onError?: (issuer: string, err: Error) => void;
  now?: () => number;
}

interface IssuerAuthenticator {
  spec: JwtAuthenticatorSpec;
  keys: OidcKeySet;
  verifier: IdTokenVerifier;
  mapper: ClaimMapper;
  /** Set when the groups mapping names a claim, which may be distributed. */
  distributedClaims?: DistributedClaimResolver;
}

interface CacheEntry {
  result: AuthenticationResult | Error;
  /** The issuer that verified the token (the token's bytes include its `iss`). */
  issuer: string;
}

const hmacOrNone = /^(HS\d+|none)$/i;

/** kube-apiserver's token cache keeps a successful authentication 10 s (--authentication-token-cache-ttl's counterpart). */
const successCacheTtlMs = 10_000;

/**
 * The JWT authenticators of an AuthenticationConfiguration. A token is routed by its (unverified)
 * `iss` to the one authenticator with that issuer URL, which verifies it cryptographically; the
 * unverified payload is used for nothing else. A successful result is remembered per token (by
 * SHA-256) for 10 s or until the token expires, whichever comes first, as kube-apiserver's token
 * cache does, so a busy client costs one verification (and one distributed claim fetch) per 10 s;
 * concurrent first uses of one token share one verification. The cache is least-recently-used
 * with a TTL per entry, as kube-apiserver's (an LRUExpireCache in
 * staging/src/k8s.io/apiserver/pkg/authentication/token/cache/cache_simple.go).
 */
export class JwtAuthenticator implements TokenAuthenticator {
  private readonly byIssuer = new Map<string, IssuerAuthenticator>();
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly inflight = new Map<string, Promise<AuthenticationResult>>();
  private readonly algorithms: string[];
  private readonly validations: Counter<'issuer' | 'result'>;

  constructor(
    specs: readonly JwtAuthenticatorSpec[],
    private readonly opts: JwtAuthenticatorOptions = {},
  ) {
    // ttlResolution 0: every lookup reads the clock (an injected `now` must take effect at once).
    const now = opts.now;
    this.cache = new LRUCache({ max: opts.maxCacheEntries ?? 10_000, ttlResolution: 0, perf: now ? { now } : undefined });
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
      const verifier = new IdTokenVerifier({
        issuer: spec.issuer.url,
        audiences: spec.issuer.audiences,
        algorithms: this.algorithms,
        keys: keys.resolveKey,
      });
      const groupsClaim = spec.claimMappings.groups?.claim;
      this.byIssuer.set(spec.issuer.url, {
        spec,
        keys,
        verifier,
        mapper: new ClaimMapper(spec),
        distributedClaims: groupsClaim
          ? new DistributedClaimResolver({ claim: groupsClaim, issuer: spec.issuer.url, verifier, dispatcher: keys.dispatcher })
          : undefined,
      });
    }
  }

  /** Starts discovery and key loading in the background; the server does not wait for it. */
  start(): void {
    for (const a of this.byIssuer.values()) a.keys.start();
  }

  /**
   * Per issuer, whether its keys have loaded (Kubernetes' HealthCheck of a JWT authenticator): a
   * reloaded configuration is switched to once all are ready. Not a /readyz check, as in Kubernetes.
   */
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
    if (cached) {
      this.count(cached.issuer, 'cached');
      if (cached.result instanceof Error) throw cached.result;
      return cached.result;
    }

    // Only compact JWTs whose issuer is configured are ours; anything else belongs to another token authenticator.
    const untrusted = untrustedIssuer(token);
    if ('error' in untrusted) return null;
    const authenticator = this.byIssuer.get(untrusted.issuer);
    if (!authenticator) return null;
    const issuer = authenticator.spec.issuer.url;

    // One verification serves every request that waits for it, so no one request's signal stops
    // it: its fetches end within the issuer client's timeouts.
    let verification = this.inflight.get(key);
    if (!verification) {
      verification = this.verify(authenticator, token, now, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, verification);
    }
    try {
      const result = await verification;
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
    let claims;
    try {
      claims = await a.verifier.verify(token, now);
    } catch (err) {
      throw new AuthenticationError(`oidc: verify token: ${(err as Error).message}`);
    }
    if (a.distributedClaims) {
      try {
        await a.distributedClaims.expand(claims, now);
      } catch (err) {
        throw new AuthenticationError(`oidc: could not expand distributed claims: ${(err as Error).message}`);
      }
    }
    const user = a.mapper.map(claims);
    const result: AuthenticationResult = { user, audiences: a.spec.issuer.audiences };
    const expMs = Number(claims.exp) * 1000;
    const ttl = Math.min(expMs - now, successCacheTtlMs);
    if (ttl > 0) this.cache.set(key, { result, issuer: a.spec.issuer.url }, { ttl });
    return result;
  }
}
