import { Agent, request, type Dispatcher } from 'undici';
import { createLocalJWKSet, errors as joseErrors, type CompactJWSHeaderParameters, type FlattenedJWSInput, type JSONWebKeySet } from 'jose';
import { AuthenticationError } from '../interface.js';

/** Discovery or the JWKS could not be fetched or used; the key set keeps its last good keys. */
export class OidcDiscoveryError extends Error {
  readonly code = 'ERR_OIDC_DISCOVERY';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OidcDiscoveryError';
  }
}

export interface OidcKeySetOptions {
  /** The issuer URL: discovery's `issuer` must equal it. */
  issuerUrl: string;
  /** Overrides `{issuerUrl}/.well-known/openid-configuration`; used as is. */
  discoveryUrl?: string;
  /** PEM CA certificates for the discovery and JWKS connections; the system roots when unset. */
  certificateAuthority?: string;
  /** How often keys are refreshed while all goes well (default 1 h). */
  refreshIntervalMs?: number;
  /** The least time between two refreshes caused by an unknown `kid` (default 10 s). */
  minUnknownKidRefreshMs?: number;
  /** Retry delay while discovery has never succeeded (default 1 s, doubling to 10 s, Kubernetes' poll interval). */
  initialRetryMs?: number;
  requestTimeoutMs?: number;
  onError?: (err: Error) => void;
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;
type KeyResolver = (header: CompactJWSHeaderParameters, token: FlattenedJWSInput) => ReturnType<LocalKeySet>;

/**
 * An issuer's signing keys, discovered and fetched in the background: `start()` returns at once,
 * the set is not ready until the first JWKS has loaded, an unknown `kid` triggers a rate-limited
 * refresh, and the last good keys stay in use when the issuer later goes away.
 */
export class OidcKeySet {
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;
  private lastError: Error | undefined;
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly agent: Agent;
  private supportedAlgorithms: string[] | undefined;

  constructor(private readonly opts: OidcKeySetOptions) {
    this.agent = new Agent({
      connect: opts.certificateAuthority ? { ca: opts.certificateAuthority } : {},
      headersTimeout: opts.requestTimeoutMs ?? 10_000,
      bodyTimeout: opts.requestTimeoutMs ?? 10_000,
    });
  }

  get ready(): boolean {
    return this.keys !== undefined;
  }

  /** Why the set is not ready (or the last refresh failed). */
  get error(): Error | undefined {
    return this.lastError;
  }

  /** The HTTP client of this issuer (its CA and timeouts), also used for distributed claim sources. */
  get dispatcher(): Dispatcher {
    return this.agent;
  }

  /** Algorithms the provider advertises (`id_token_signing_alg_values_supported`), when it does. */
  get advertisedAlgorithms(): string[] | undefined {
    return this.supportedAlgorithms;
  }

  start(): void {
    let delay = this.opts.initialRetryMs ?? 1000;
    const attempt = async () => {
      if (this.closed) return;
      await this.refresh();
      if (this.closed) return;
      if (this.keys) {
        this.timer = setTimeout(attempt, this.opts.refreshIntervalMs ?? 3_600_000);
      } else {
        this.timer = setTimeout(attempt, delay);
        delay = Math.min(delay * 2, 10_000);
      }
      this.timer.unref();
    };
    void attempt();
  }

  /** Resolves the verification key for a token header, refreshing once on an unknown `kid`. */
  readonly resolveKey: KeyResolver = async (header, token) => {
    if (!this.keys) throw new AuthenticationError('oidc: authenticator not initialized');
    try {
      return await this.keys(header, token);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey)) throw err;
      const minGap = this.opts.minUnknownKidRefreshMs ?? 10_000;
      if (Date.now() - this.lastRefresh >= minGap) await this.refresh();
      return this.keys(header, token);
    }
  };

  /** Fetches discovery and the JWKS now (one at a time); keeps the old keys on failure. */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.fetchKeys()
        .then(
          () => {
            this.lastError = undefined;
          },
          (err: Error) => {
            this.lastError = err;
            this.opts.onError?.(err);
          },
        )
        .finally(() => {
          this.lastRefresh = Date.now();
          this.refreshing = undefined;
        });
    }
    return this.refreshing;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.agent.close();
  }

  private async fetchKeys(): Promise<void> {
    const issuer = this.opts.issuerUrl;
    const discoveryUrl = this.opts.discoveryUrl || `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const discovery = (await this.getJson(discoveryUrl)) as { issuer?: unknown; jwks_uri?: unknown; id_token_signing_alg_values_supported?: unknown };
    if (discovery.issuer !== issuer) {
      throw new OidcDiscoveryError(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuer)} got ${JSON.stringify(discovery.issuer)}`,
      );
    }
    if (typeof discovery.jwks_uri !== 'string' || !discovery.jwks_uri) {
      throw new OidcDiscoveryError('oidc: discovery document has no jwks_uri');
    }
    const jwks = (await this.getJson(discovery.jwks_uri)) as JSONWebKeySet;
    if (!jwks || !Array.isArray(jwks.keys)) throw new OidcDiscoveryError(`oidc: ${discovery.jwks_uri} did not return a JSON Web Key Set`);
    this.keys = createLocalJWKSet(jwks);
    const algs = discovery.id_token_signing_alg_values_supported;
    this.supportedAlgorithms = Array.isArray(algs) ? algs.filter((a): a is string => typeof a === 'string') : undefined;
  }

  private async getJson(url: string): Promise<unknown> {
    let res;
    try {
      res = await request(url, { dispatcher: this.agent, headers: { accept: 'application/json' } });
    } catch (err) {
      throw new OidcDiscoveryError(`oidc: fetching ${url}: ${(err as Error).message}`, { cause: err });
    }
    const body = await res.body.text();
    if (res.statusCode !== 200) {
      throw new OidcDiscoveryError(`oidc: fetching ${url}: ${res.statusCode}: ${body.slice(0, 200)}`);
    }
    try {
      return JSON.parse(body);
    } catch (err) {
      throw new OidcDiscoveryError(`oidc: decoding ${url}: ${(err as Error).message}`, { cause: err });
    }
  }
}
