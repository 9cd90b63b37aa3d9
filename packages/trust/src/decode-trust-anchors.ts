import { readBundleCertificates } from '@plat/x509';
import type { TrustAnchorFormat } from './encode-trust-anchors.js';

/** What a file in one of the formats holds, read back. */
export interface DecodedTrustAnchors {
  /** The certificates in file order, with the alias (keystores) or '' (pem, spiffe). */
  certificates: { alias: string; der: Uint8Array }[];
  /** spiffe: the bundle's `spiffe_sequence`. */
  spiffeSequence?: number;
  /** pkcs12: the MAC's hash (`sha256` by default, `sha1` when legacy); absent for a password-less store. */
  pkcs12Mac?: 'sha1' | 'sha256';
  /** spiffe: the bundle's `spiffe_refresh_hint`. */
  spiffeRefreshHintSeconds?: number;
}

/**
 * Reads a file written by `encodeTrustAnchors` (and the same formats from Java, OpenSSL or SPIRE):
 * what `trust sync` compares before replacing a file and what tests read back. A wrong password
 * or a file in another format is TrustError `DecodeFailed`.
 */
export async function decodeTrustAnchors(bytes: Uint8Array, format: TrustAnchorFormat, options: { password?: string } = {}): Promise<DecodedTrustAnchors> {
  switch (format) {
    case 'pem':
      return { certificates: readBundleCertificates(Buffer.from(bytes).toString('utf8')).map((c) => ({ alias: '', der: c.der })) };
    case 'jks':
      return { certificates: (await import('./jks-truststore.js')).decodeJksTruststore(bytes, options).map(({ alias, der }) => ({ alias, der })) };
    case 'pkcs12': {
      const store = (await import('./pkcs12-truststore.js')).decodePkcs12Truststore(bytes, options);
      return { certificates: store.certificates.map(({ alias, der }) => ({ alias, der })), ...(store.mac ? { pkcs12Mac: store.mac } : {}) };
    }
    case 'spiffe': {
      const bundle = (await import('./spiffe-bundle.js')).decodeSpiffeBundle(bytes);
      return {
        certificates: bundle.certificates.map((der) => ({ alias: '', der })),
        ...(bundle.sequence === undefined ? {} : { spiffeSequence: bundle.sequence }),
        ...(bundle.refreshHintSeconds === undefined ? {} : { spiffeRefreshHintSeconds: bundle.refreshHintSeconds }),
      };
    }
  }
}
