import { readBundleCertificates } from '@plat/x509';
import type { TrustAnchors } from './trust-anchors.js';

/** One certificate of a keystore: its alias, DER and the notBefore written as the entry's date. */
export interface TruststoreEntry {
  readonly alias: string;
  readonly der: Uint8Array;
  readonly sha256: string;
  readonly notBefore: Date;
}

/** Aliases are bounded so that a long CN cannot make `keytool -list` unreadable. */
const maxAliasNameLength = 64;

/** The first CN of an RFC 4514 subject (last RDN first: the most specific one), unescaped. */
function commonNameOf(subject: string): string | undefined {
  // Attributes are separated by unescaped ',' or '+'; values escape with '\' + char or '\' + 2 hex.
  for (const m of subject.matchAll(/(?:^|[,+])\s*([^=,+]+)=((?:\\.|[^,+\\])*)/g)) {
    if (m[1].trim().toUpperCase() !== 'CN') continue;
    return m[2].replace(/\\([0-9a-fA-F]{2}|.)/g, (_all, e: string) => (e.length === 2 ? String.fromCharCode(parseInt(e, 16)) : e));
  }
  return undefined;
}

/**
 * A stable, readable alias: the subject's CN in lower case (Java's JKS and PKCS12 keystores
 * lower-case aliases anyway, `JavaKeyStore.JKS.convertAlias` and `PKCS12KeyStore.engineLoad`),
 * with every run of characters other than letters, digits, '.', '_' and '-' made one '-', then
 * '-' and the first 8 hex digits of the SHA-256 of the DER. `keytool -list` of two versions of a
 * store diffs by anchor.
 */
export function truststoreAlias(subject: string, sha256: string): string {
  const name = (commonNameOf(subject) ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxAliasNameLength);
  return `${name || 'anchor'}-${sha256.slice(0, 8)}`;
}

/**
 * The keystore entries of the anchors, in canonical order. Two anchors whose aliases would clash
 * (same CN, same first 8 hex) get the full SHA-256 instead.
 */
export function truststoreEntries(anchors: Pick<TrustAnchors, 'pem' | 'anchors'>): TruststoreEntry[] {
  const certs = readBundleCertificates(anchors.pem);
  const used = new Set<string>();
  return anchors.anchors.map((anchor, i) => {
    let alias = truststoreAlias(anchor.subject, anchor.sha256);
    if (used.has(alias)) alias = `${alias.slice(0, -8)}${anchor.sha256}`;
    used.add(alias);
    return { alias, der: certs[i].der, sha256: anchor.sha256, notBefore: anchor.notBefore };
  });
}
