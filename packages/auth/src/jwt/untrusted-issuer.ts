import { JsonDecodeError, decodeJson } from '@plat/api-model';
import { googleIssuer, jsonType } from './id-token-verifier.js';

const base64url = /^[A-Za-z0-9_-]*$/;

/**
 * Kubernetes' untrustedIssuer: the `iss` of a compact JWT, read without verifying anything, to
 * route the token to the authenticator of that issuer (and to check where a distributed claim
 * comes from). Google's legacy `accounts.google.com` counts as `https://accounts.google.com`.
 * Answers the issuer, or the reason the token cannot be read, in Kubernetes' words.
 */
export function untrustedIssuer(token: string): { issuer: string } | { error: string } {
  if (token.trimStart().startsWith('{')) return { error: 'token is not compact JWT' };
  const parts = token.split('.');
  if (parts.length !== 3) return { error: 'malformed token' };
  const encoded = parts[1]!;
  // Go's base64.RawURLEncoding: the URL alphabet, no padding, no dangling sextet.
  if (!base64url.test(encoded) || encoded.length % 4 === 1) {
    const at = base64url.test(encoded) ? encoded.length - 1 : [...encoded].findIndex((c) => !base64url.test(c));
    return { error: `error decoding token: illegal base64 data at input byte ${at}` };
  }
  let payload: unknown;
  try {
    // The shared decoder: Go's syntax messages, nesting bounded, before any signature is checked.
    payload = decodeJson(Buffer.from(encoded, 'base64url').toString('utf8')).value;
  } catch (err) {
    if (!(err instanceof JsonDecodeError)) throw err;
    return { error: `while unmarshaling token: ${err.message}` };
  }
  // encoding/json leaves the struct empty for `null`.
  if (payload === null) return { issuer: '' };
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    return { error: `while unmarshaling token: json: cannot unmarshal ${jsonType(payload)} into Go value of type struct { Issuer string "json:\\"iss\\"" }` };
  }
  const iss = (payload as { iss?: unknown }).iss;
  if (iss !== undefined && iss !== null && typeof iss !== 'string') {
    return { error: `while unmarshaling token: json: cannot unmarshal ${jsonType(iss)} into Go struct field .iss of type string` };
  }
  const issuer = typeof iss === 'string' ? iss : '';
  return { issuer: issuer === 'accounts.google.com' ? googleIssuer : issuer };
}
