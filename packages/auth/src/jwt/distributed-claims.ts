import { STATUS_CODES } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { goQuote } from '@plat/api-model';
import { AuthenticationError } from '../interface.js';
import type { Claims, IdTokenVerifier } from './id-token-verifier.js';
import { untrustedIssuer } from './untrusted-issuer.js';

/** The most a claim source may answer; a larger body is refused (Kubernetes reads any size). */
export const maxClaimSourceResponseBytes = 1 << 20;

export interface DistributedClaimResolverOptions {
  /** The claim to resolve (the groups claim of the claim mappings). */
  claim: string;
  /** The authenticator's issuer: the claim source's JWT must be issued, and is verified, by it. */
  issuer: string;
  verifier: IdTokenVerifier;
  /** The issuer's HTTP client (its CA, timeouts). */
  dispatcher: Dispatcher;
}

/**
 * Kubernetes' claimResolver for distributed claims (OpenID Connect Core 1.0 §5.6.2): when a
 * verified token has no `claim` but names a source for it in `_claim_names`, the source's
 * `endpoint` is fetched (with its `access_token` as bearer token), the JWT it answers is
 * verified like the token itself (same issuer, keys, algorithms, audiences and clock rules) and
 * its value of `claim` is copied into the claims. A normal claim wins over a distributed one;
 * aggregated claims (a source with `JWT` and no `endpoint`) are left alone, as Kubernetes does.
 * Unlike Kubernetes, which discovers any issuer the source's JWT names, only the token's own
 * issuer is accepted.
 */
export class DistributedClaimResolver {
  constructor(private readonly opts: DistributedClaimResolverOptions) {}

  /** Resolves the claim into `claims` in place; throws with Kubernetes' texts. */
  async expand(claims: Claims, nowMs: number): Promise<void> {
    const { claim } = this.opts;
    if (Object.hasOwn(claims, claim) || !Object.hasOwn(claims, '_claim_names')) return;
    // The verifier checked the shapes of both maps and that each named source exists.
    const names = (claims._claim_names ?? {}) as Record<string, string>;
    if (!Object.hasOwn(claims, '_claim_sources')) throw new AuthenticationError('oidc: no claim sources');
    const sources = (claims._claim_sources ?? {}) as Record<string, { endpoint?: string | null; access_token?: string | null } | null>;
    if (!Object.hasOwn(names, claim)) return;
    const source = names[claim]!;
    if (!Object.hasOwn(sources, source)) throw new AuthenticationError(`id token _claim_names contained a source ${source} missing in _claims_sources`);
    const endpoint = sources[source]?.endpoint ?? '';
    if (endpoint === '') return;
    claims[claim] = await this.resolve(endpoint, sources[source]?.access_token ?? '', nowMs);
  }

  private async resolve(endpoint: string, accessToken: string, nowMs: number): Promise<unknown> {
    const { claim, issuer } = this.opts;
    const jwt = await this.fetchClaimJwt(endpoint, accessToken);
    const untrusted = untrustedIssuer(jwt);
    if ('error' in untrusted) {
      throw new AuthenticationError(`getting untrusted issuer from endpoint ${endpoint} failed for claim ${goQuote(claim)}: ${untrusted.error}`);
    }
    if (untrusted.issuer !== issuer) {
      throw new AuthenticationError(`verifying untrusted issuer ${untrusted.issuer} failed: distributed claims are accepted from the issuer ${goQuote(issuer)} only`);
    }
    let distributed: Claims;
    try {
      distributed = await this.opts.verifier.verify(jwt, nowMs);
    } catch (err) {
      throw new AuthenticationError(`verify distributed claim token: ${(err as Error).message}`, { cause: err });
    }
    if (!Object.hasOwn(distributed, claim)) {
      throw new AuthenticationError(`jwt returned by distributed claim endpoint ${goQuote(endpoint)} did not contain claim: ${claim}`);
    }
    return distributed[claim];
  }

  /**
   * GETs the source's JWT (any 2xx answer, as Kubernetes accepts), at most
   * {@link maxClaimSourceResponseBytes}, within the issuer client's header and body timeouts.
   */
  private async fetchClaimJwt(endpoint: string, accessToken: string): Promise<string> {
    const fail = (detail: string) => new AuthenticationError(`while getting distributed claim ${goQuote(this.opts.claim)}: ${detail}`);
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch (err) {
      throw fail(`while calling ${endpoint}: ${(err as Error).message}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail(`Get ${goQuote(endpoint)}: unsupported protocol scheme ${goQuote(url.protocol.slice(0, -1))}`);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        dispatcher: this.opts.dispatcher,
        headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
      });
    } catch (err) {
      throw fail(`Get ${goQuote(endpoint)}: ${(err as Error).message}`);
    }
    if (res.statusCode < 200 || res.statusCode > 226) {
      await res.body.dump().catch(() => undefined);
      throw fail(`error while getting distributed claim JWT: ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trimEnd());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        // Leaving the loop early destroys the body.
        if (size > maxClaimSourceResponseBytes) break;
        chunks.push(chunk as Buffer);
      }
    } catch {
      throw fail('could not decode distributed claim response');
    }
    if (size > maxClaimSourceResponseBytes) throw fail(`the response is larger than ${maxClaimSourceResponseBytes} bytes`);
    // go-jose ignores whitespace around a compact JWS; a trailing newline is common.
    return Buffer.concat(chunks).toString('utf8').trim();
  }
}
