import { compactVerify, decodeProtectedHeader, errors as joseErrors, type CompactVerifyGetKey } from 'jose';
import { goQuote, goQuoteList } from '@plat/api-model';
import { AuthenticationError } from '../interface.js';

export type Claims = Record<string, unknown>;

/** Google's legacy `iss` without a scheme, which go-oidc accepts for Google's issuer only. */
export const googleIssuer = 'https://accounts.google.com';
const googleIssuerNoScheme = 'accounts.google.com';

/** go-oidc v2 (the version Kubernetes uses) accepts `nbf` up to one minute in the future; `exp` has no leeway. */
const notBeforeLeewayMs = 60_000;

export interface IdTokenVerifierOptions {
  issuer: string;
  /** One of the token's audiences must be one of these (MatchAny). */
  audiences: readonly string[];
  algorithms: readonly string[];
  keys: CompactVerifyGetKey;
}

/**
 * Kubernetes' idTokenVerifier: go-oidc v2's `IDTokenVerifier.Verify` (signature and algorithm,
 * the claim types of its idToken struct, the distributed-claim references, issuer, audience,
 * expiry, not-before) followed by Kubernetes' MatchAny audience check. Errors carry go-oidc's
 * and Kubernetes' texts; the signature is verified first, so nothing is read from a forged token.
 */
export class IdTokenVerifier {
  private readonly algorithmList: string;
  private readonly audienceList: string;

  constructor(private readonly opts: IdTokenVerifierOptions) {
    this.algorithmList = goQuoteList(opts.algorithms);
    this.audienceList = goQuoteList([...new Set(opts.audiences)].sort());
  }

  /** The verified claims, or an Error with the message go-oidc / Kubernetes would give. */
  async verify(token: string, nowMs: number): Promise<Claims> {
    let payload: Uint8Array;
    try {
      payload = await this.verifySignature(token);
    } catch (err) {
      throw new AuthenticationError(this.signatureErrorText(err, token), { cause: err });
    }
    let claims: unknown;
    try {
      claims = JSON.parse(new TextDecoder().decode(payload));
    } catch (err) {
      throw new AuthenticationError(`oidc: failed to unmarshal claims: ${(err as Error).message}`, { cause: err });
    }
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
      throw new AuthenticationError(`oidc: failed to unmarshal claims: json: cannot unmarshal ${jsonType(claims)} into Go value of type oidc.idToken`);
    }
    this.check(claims as Claims, nowMs);
    return claims as Claims;
  }

  /**
   * The payload of a token whose signature verifies. When several keys fit the header (no `kid`,
   * or one `kid` on several keys), each is tried in turn, as go-oidc's key set does.
   */
  private async verifySignature(token: string): Promise<Uint8Array> {
    const options = { algorithms: [...this.opts.algorithms] };
    try {
      return (await compactVerify(token, this.opts.keys, options)).payload;
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSMultipleMatchingKeys)) throw err;
      for await (const key of err as unknown as AsyncIterable<Parameters<typeof compactVerify>[1]>) {
        try {
          return (await compactVerify(token, key, options)).payload;
        } catch {
          // The next key may be the one.
        }
      }
      throw new joseErrors.JWSSignatureVerificationFailed();
    }
  }

  private check(claims: Claims, nowMs: number): void {
    const typeError = idTokenTypeError(claims);
    if (typeError) throw new AuthenticationError(`oidc: failed to unmarshal claims: ${typeError}`);

    const names = claims._claim_names as Record<string, string> | null | undefined;
    const sources = claims._claim_sources as Record<string, unknown> | null | undefined;
    for (const source of Object.values(names ?? {})) {
      if (source === '') throw new AuthenticationError('oidc: failed to obtain source from claim name');
      if (!sources || !Object.hasOwn(sources, source)) throw new AuthenticationError('oidc: source does not exist');
    }

    const iss = (claims.iss as string | undefined) ?? '';
    if (iss !== this.opts.issuer && !(this.opts.issuer === googleIssuer && iss === googleIssuerNoScheme)) {
      throw new AuthenticationError(`oidc: id token issued by a different provider, expected ${goQuote(this.opts.issuer)} got ${goQuote(iss)}`);
    }

    const aud = claims.aud === undefined || claims.aud === null ? [] : typeof claims.aud === 'string' ? [claims.aud] : (claims.aud as string[]);
    // go-oidc checks a single configured audience itself (its ClientID); Kubernetes checks several after go-oidc.
    const single = this.opts.audiences.length === 1 ? this.opts.audiences[0] : undefined;
    if (single !== undefined && !aud.includes(single)) {
      throw new AuthenticationError(`oidc: expected audience ${goQuote(single)} got ${goQuoteList(aud)}`);
    }

    const expMs = numericDateMs(claims.exp) ?? goZeroTimeMs;
    if (expMs < nowMs) throw new AuthenticationError(`oidc: token is expired (Token Expiry: ${goTimeString(expMs)})`);
    const nbfMs = numericDateMs(claims.nbf);
    if (nbfMs !== undefined && nowMs + notBeforeLeewayMs < nbfMs) {
      throw new AuthenticationError(`oidc: current time ${goTimeString(nowMs)} before the nbf (not before) time: ${goTimeString(nbfMs)}`);
    }

    if (single === undefined && !aud.some((a) => this.opts.audiences.includes(a))) {
      throw new AuthenticationError(`oidc: expected audience in ${this.audienceList} got ${goQuoteList(aud)}`);
    }
  }

  private signatureErrorText(err: unknown, token: string): string {
    if (err instanceof joseErrors.JOSEAlgNotAllowed || err instanceof joseErrors.JOSENotSupported) {
      let alg = '';
      try {
        alg = String(decodeProtectedHeader(token).alg ?? '');
      } catch {
        // The header was read once already; keep the empty name.
      }
      return `oidc: id token signed with unsupported algorithm, expected ${this.algorithmList} got ${goQuote(alg)}`;
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) {
      return 'failed to verify signature: failed to verify id token signature';
    }
    if (err instanceof joseErrors.JWSInvalid) return `oidc: malformed jwt: ${(err as Error).message}`;
    return (err as Error).message;
  }
}

/** How encoding/json names a JSON value's kind in its errors. */
export function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

const stringClaims = ['iss', 'sub', 'nonce', 'at_hash'];
const timeClaims = ['exp', 'iat', 'nbf'];

/**
 * The error encoding/json gives when the claims do not fit go-oidc's idToken struct (strings,
 * an audience string or list, numeric dates, the distributed-claim maps); null means unset.
 */
function idTokenTypeError(claims: Claims): string | undefined {
  const mismatch = (field: string, value: unknown, goType: string) =>
    `json: cannot unmarshal ${jsonType(value)} into Go struct field idToken.${field} of type ${goType}`;
  for (const name of stringClaims) {
    const v = claims[name];
    if (v !== undefined && v !== null && typeof v !== 'string') return mismatch(name, v, 'string');
  }
  const aud = claims.aud;
  if (aud !== undefined && aud !== null && typeof aud !== 'string') {
    if (!Array.isArray(aud)) return `json: cannot unmarshal ${jsonType(aud)} into Go value of type []string`;
    const bad = aud.find((a) => typeof a !== 'string');
    if (bad !== undefined) return `json: cannot unmarshal ${jsonType(bad)} into Go value of type string`;
  }
  for (const name of timeClaims) {
    const v = claims[name];
    if (v === undefined || v === null || typeof v === 'number') continue;
    if (typeof v === 'string' && isGoNumber(v)) continue;
    // jsonTime decodes through its own json.Unmarshal into a json.Number, so Go names no field.
    return typeof v === 'string'
      ? `json: invalid number literal, trying to unmarshal ${goQuote(JSON.stringify(v))} into Number`
      : `json: cannot unmarshal ${jsonType(v)} into Go value of type json.Number`;
  }
  const names = claims._claim_names;
  if (names !== undefined && names !== null) {
    if (typeof names !== 'object' || Array.isArray(names)) return mismatch('_claim_names', names, 'map[string]string');
    for (const v of Object.values(names)) if (typeof v !== 'string') return mismatch('_claim_names', v, 'string');
  }
  const sources = claims._claim_sources;
  if (sources !== undefined && sources !== null) {
    if (typeof sources !== 'object' || Array.isArray(sources)) return mismatch('_claim_sources', sources, 'map[string]oidc.claimSource');
    for (const source of Object.values(sources)) {
      if (source === null) continue;
      if (typeof source !== 'object' || Array.isArray(source)) return mismatch('_claim_sources', source, 'oidc.claimSource');
      for (const field of ['endpoint', 'access_token']) {
        const v = (source as Record<string, unknown>)[field];
        if (v !== undefined && v !== null && typeof v !== 'string') return mismatch(`_claim_sources.${field}`, v, 'string');
      }
    }
  }
  return undefined;
}

/** encoding/json's number literal grammar (a json.Number accepts a quoted one too). */
function isGoNumber(s: string): boolean {
  return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(s);
}

/** A NumericDate claim in milliseconds, truncated to whole seconds as go-oidc's jsonTime does. */
function numericDateMs(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  return Math.trunc(Number(v)) * 1000;
}

/** Go's zero time.Time (year 1), which an absent `exp` decodes to: such a token is expired. */
const goZeroTimeMs = new Date('0001-01-01T00:00:00Z').getTime();

/** Go's time.Time String() in UTC: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
export function goTimeString(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return `${Math.trunc(ms / 1000)} (seconds since 1970)`;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const fraction = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '')}` : '';
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction} +0000 UTC`
  );
}
