import { readBundleCertificates } from '@plat/x509';
import { decodeTrustAnchors } from './decode-trust-anchors.js';
import { encodeTrustAnchors, type EncodeTrustAnchorsOptions, type TrustAnchorFormat } from './encode-trust-anchors.js';
import type { TrustAnchors } from './trust-anchors.js';
import { defaultSpiffeRefreshHintSeconds, nextSpiffeSequence } from './spiffe-bundle.js';
import { readTrustBundleFile, writeTrustBundleFile } from './trust-bundle-file.js';
import { truststoreEntries } from './truststore-entries.js';

/** A file a consumer keeps equal to the anchors, in one format. */
export interface TrustAnchorsFileTarget extends Pick<EncodeTrustAnchorsOptions, 'password' | 'legacy' | 'iterations' | 'spiffeRefreshHintSeconds'> {
  file: string;
  /** Default `pem`. */
  format?: TrustAnchorFormat;
}

const hex = (der: Uint8Array) => Buffer.from(der).toString('hex');

/**
 * Writes the anchors to a target unless it already holds exactly them: true when it wrote.
 * PKCS#12 stores have random salts and IVs, so a store is compared by what it holds (read back
 * with the password: the same aliases and certificates, the same protection); a SPIFFE bundle by
 * its certificates and refresh hint, and when it is rewritten its `spiffe_sequence` follows the
 * one in the file (`nextSpiffeSequence`). PEM and JKS are compared byte for byte.
 */
export async function writeTrustAnchorsFile(target: TrustAnchorsFileTarget, anchors: TrustAnchors): Promise<boolean> {
  const format = target.format ?? 'pem';
  if (format === 'pem') {
    if ((await readTrustBundleFile(target.file)) === anchors.pem) return false;
    await writeTrustBundleFile(target.file, anchors.pem);
    return true;
  }
  const current = await readTrustBundleFile(target.file, 'binary');
  let options: EncodeTrustAnchorsOptions = target;
  if (current && format === 'jks') {
    const bytes = await encodeTrustAnchors(anchors, format, target);
    if (current.equals(bytes)) return false;
    await writeTrustBundleFile(target.file, bytes);
    return true;
  }
  if (current) {
    // A file that does not read back (another format, another password, damaged) is replaced.
    const held = await decodeTrustAnchors(current, format, { password: target.password }).catch(() => undefined);
    if (held) {
      const same = sameAnchors(held.certificates, anchors, format);
      if (format === 'pkcs12') {
        const wantMac = target.password === undefined ? undefined : target.legacy ? 'sha1' : 'sha256';
        if (same && held.pkcs12Mac === wantMac) return false;
      } else {
        if (same && held.spiffeRefreshHintSeconds === (target.spiffeRefreshHintSeconds ?? defaultSpiffeRefreshHintSeconds)) return false;
        options = { ...target, spiffeSequence: nextSpiffeSequence(held.spiffeSequence) };
      }
    }
  }
  await writeTrustBundleFile(target.file, await encodeTrustAnchors(anchors, format, options));
  return true;
}

function sameAnchors(held: { alias: string; der: Uint8Array }[], anchors: TrustAnchors, format: TrustAnchorFormat): boolean {
  const want = readBundleCertificates(anchors.pem);
  if (held.length !== want.length || held.some((c, i) => hex(c.der) !== hex(want[i].der))) return false;
  if (format !== 'pkcs12') return true;
  const aliases = truststoreEntries(anchors).map((e) => e.alias);
  return held.every((c, i) => c.alias === aliases[i]);
}
