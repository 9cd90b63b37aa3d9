import type { TrustAnchors } from './trust-anchors.js';
import { truststoreEntries } from './truststore-entries.js';
import { TrustError } from './trust-error.js';

/** The forms a consumer can get the anchors in. */
export const trustAnchorFormats = ['pem', 'pkcs12', 'jks', 'spiffe'] as const;
export type TrustAnchorFormat = (typeof trustAnchorFormats)[number];

export interface EncodeTrustAnchorsOptions {
  /**
   * pkcs12: absent for a password-less store; jks: default `changeit`. Ignored by pem and spiffe.
   */
  password?: string;
  /** pkcs12: 3DES and a SHA-1 MAC for readers without PBES2. */
  legacy?: boolean;
  /** pkcs12: PBKDF2 and MAC iterations (default 10,000; 2,048 when legacy). */
  iterations?: number;
  /** spiffe: `spiffe_sequence` (default: the current Unix time in seconds, `nextSpiffeSequence`). */
  spiffeSequence?: number;
  /** spiffe: `spiffe_refresh_hint` in seconds (default 300). */
  spiffeRefreshHintSeconds?: number;
}

export function isTrustAnchorFormat(value: string): value is TrustAnchorFormat {
  return (trustAnchorFormats as readonly string[]).includes(value);
}

/**
 * The canonical anchors of a selection (`resolveTrustAnchors`, `watchTrustAnchors`) written in
 * one format: `pem` is the canonical PEM itself; `pkcs12` and `jks` are truststores of one
 * trusted-certificate entry per anchor (aliases from `truststoreAlias`), `spiffe` a SPIFFE bundle.
 * Every format holds exactly the anchors of `pem`, in the same order. The encoders load on first use.
 */
export async function encodeTrustAnchors(resolved: Pick<TrustAnchors, 'pem' | 'anchors'>, format: TrustAnchorFormat, options: EncodeTrustAnchorsOptions = {}): Promise<Uint8Array> {
  switch (format) {
    case 'pem':
      return Buffer.from(resolved.pem, 'utf8');
    case 'jks':
      return (await import('./jks-truststore.js')).encodeJksTruststore(truststoreEntries(resolved), options);
    case 'pkcs12':
      return (await import('./pkcs12-truststore.js')).encodePkcs12Truststore(truststoreEntries(resolved), options);
    case 'spiffe': {
      const { encodeSpiffeBundle, nextSpiffeSequence } = await import('./spiffe-bundle.js');
      return encodeSpiffeBundle(truststoreEntries(resolved), {
        sequence: options.spiffeSequence ?? nextSpiffeSequence(undefined),
        refreshHintSeconds: options.spiffeRefreshHintSeconds,
      });
    }
    default:
      throw new TrustError('EncodeFailed', `unknown trust anchor format "${String(format)}", allowed formats are: ${trustAnchorFormats.join(',')}`);
  }
}
