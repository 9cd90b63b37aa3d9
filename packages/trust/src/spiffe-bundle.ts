import { X509Certificate, type JsonWebKey } from 'node:crypto';
import { TrustError } from './trust-error.js';
import type { TruststoreEntry } from './truststore-entries.js';

/** What a SPIFFE bundle carries besides its keys (SPIFFE Trust Domain and Bundle, section 4.1). */
export interface SpiffeBundleOptions {
  /** `spiffe_sequence`; see `nextSpiffeSequence` for how it increases. */
  sequence: number;
  /** `spiffe_refresh_hint` in seconds; default 300 (the spec's suggested five minutes, section 6.2). */
  refreshHintSeconds?: number;
}

export const defaultSpiffeRefreshHintSeconds = 300;

/** One `x509-svid` JWK: the key parameters of the CA's public key and the CA certificate as `x5c`. */
export interface SpiffeX509Jwk {
  use: 'x509-svid';
  kty: string;
  x5c: [string];
  [param: string]: unknown;
}

export interface SpiffeBundle {
  keys: SpiffeX509Jwk[];
  spiffe_sequence: number;
  spiffe_refresh_hint: number;
}

/**
 * The sequence of a bundle whose anchors changed: one more than the last one published, and at
 * least the current Unix time in seconds. Within a process that is +1 per change; across
 * restarts (and for a file written by a new `trust sync`) the clock carries it forward, so a
 * restarted publisher never goes back as long as it changed less than once a second on average.
 */
export function nextSpiffeSequence(previous: number | undefined, now = Date.now()): number {
  return Math.max(previous === undefined ? 0 : previous + 1, Math.floor(now / 1000));
}

function jwkOf(entry: TruststoreEntry): SpiffeX509Jwk {
  let jwk: JsonWebKey;
  try {
    jwk = new X509Certificate(entry.der).publicKey.export({ format: 'jwk' });
  } catch (err) {
    throw new TrustError('EncodeFailed', `anchor ${entry.alias} has a public key JWK cannot express: ${(err as Error).message}`, { cause: err });
  }
  // Key members only (kty, n/e, crv/x/y): the X509-SVID spec's section 4 forbids nothing else, but the bundle spec asks for no extra members.
  return { use: 'x509-svid', ...(jwk as { kty: string }), x5c: [Buffer.from(entry.der).toString('base64')] };
}

/** The anchors as a SPIFFE bundle: a JWK Set of `x509-svid` keys with sequence and refresh hint. */
export function encodeSpiffeBundle(entries: readonly TruststoreEntry[], options: SpiffeBundleOptions): Uint8Array {
  const bundle: SpiffeBundle = {
    keys: entries.map(jwkOf),
    spiffe_sequence: options.sequence,
    spiffe_refresh_hint: options.refreshHintSeconds ?? defaultSpiffeRefreshHintSeconds,
  };
  return Buffer.from(`${JSON.stringify(bundle, null, 2)}\n`, 'utf8');
}

/** Bound on a SPIFFE bundle read back (docs/operations.md). */
export const maxSpiffeBundleSize = 16 * 1024 * 1024;

/**
 * The X.509 authorities of a SPIFFE bundle (`x509-svid` keys; others ignored as the spec asks),
 * with its sequence and refresh hint. A document without `keys`, an `x509-svid` key without `kty`
 * or without exactly one `x5c` certificate is TrustError `DecodeFailed`.
 */
export function decodeSpiffeBundle(bytes: Uint8Array): { certificates: Uint8Array[]; sequence?: number; refreshHintSeconds?: number } {
  const fail = (why: string): never => {
    throw new TrustError('DecodeFailed', `not a SPIFFE bundle: ${why}`);
  };
  if (bytes.length > maxSpiffeBundleSize) fail(`larger than ${maxSpiffeBundleSize} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    fail((err as Error).message);
  }
  const { keys, spiffe_sequence: sequence, spiffe_refresh_hint: hint } = (doc ?? {}) as Record<string, unknown>;
  if (!Array.isArray(keys)) fail('"keys" must be an array');
  if (sequence !== undefined && !Number.isSafeInteger(sequence)) fail('"spiffe_sequence" must be an integer');
  if (hint !== undefined && !Number.isSafeInteger(hint)) fail('"spiffe_refresh_hint" must be an integer');
  const certificates: Uint8Array[] = [];
  (keys as unknown[]).forEach((key, i) => {
    const k = (key ?? {}) as Record<string, unknown>;
    if (typeof k.kty !== 'string') fail(`keys[${i}]: "kty" must be set`);
    if (typeof k.use !== 'string') fail(`keys[${i}]: "use" must be set`);
    if (k.use !== 'x509-svid') return;
    if (!Array.isArray(k.x5c) || k.x5c.length !== 1 || typeof k.x5c[0] !== 'string') fail(`keys[${i}]: "x5c" must hold exactly one certificate`);
    certificates.push(new Uint8Array(Buffer.from((k.x5c as string[])[0], 'base64')));
  });
  return { certificates, ...(sequence === undefined ? {} : { sequence: sequence as number }), ...(hint === undefined ? {} : { refreshHintSeconds: hint as number }) };
}
