import { parseCertificate, type ParsedCertificate } from './certificate.js';
import { readPemEntries } from './pem.js';

export type TrustBundleFindingKind =
  | 'too-large'
  | 'bad-block-type'
  | 'pem-headers'
  | 'skipped-pem'
  | 'not-x509'
  | 'not-ca'
  | 'no-basic-constraints'
  | 'duplicate'
  | 'empty';

export interface TrustBundleFinding {
  /** Entry index, -1 when the finding is not tied to one entry. */
  index: number;
  kind: TrustBundleFindingKind;
  /** Kubernetes' detail text for the field error on spec.trustBundle. */
  detail: string;
  /** For 'duplicate': every index holding the same certificate. */
  indices?: number[];
}

/** Kubernetes' certificates.MaxTrustBundleSize: 1 MiB, counted in UTF-8 bytes. */
export const maxTrustBundleSize = 1024 * 1024;

function utf8Length(text: string): number {
  // Each UTF-16 code unit is at most 3 UTF-8 bytes; skip the count when it cannot matter.
  return text.length * 3 <= maxTrustBundleSize ? text.length : Buffer.byteLength(text, 'utf8');
}

function entryFinding(index: number, kind: TrustBundleFindingKind, detail: string): TrustBundleFinding {
  return { index, kind, detail };
}

/**
 * Validates a ClusterTrustBundle's spec.trustBundle the way Kubernetes does
 * (pkg/apis/certificates/validation, validateTrustBundle), returning findings instead of field
 * errors; an empty list means the bundle is valid. Never throws.
 *
 * Rules, in Kubernetes' order for each entry: the block type is CERTIFICATE, the block has no PEM
 * headers, it parses as X.509, and it is a CA (basicConstraints with cA set). Only when every entry
 * passes are bundle-level rules checked: at least one certificate, no certificate twice.
 * Data outside PEM blocks is ignored, as Go's pem.Decode ignores it, and so is a block that starts
 * like PEM but does not decode (bad base64, a BEGIN line without its dashes, no or a mismatched
 * END line): Go's Decode (src/encoding/pem/pem.go) rejects it and searches on from the line after
 * its BEGIN line, so Kubernetes never sees it and numbers its entries without it. Such a block is
 * no error here either; `onSkippedBlock` hears of it, so that a server can warn.
 */
export interface ValidateTrustBundleOptions {
  /**
   * Called with each certificate that passes the entry rules (parsed minimally: no name strings,
   * no fingerprint), so that a caller reads validity times without parsing again.
   */
  onCertificate?(der: Uint8Array, certificate: ParsedCertificate): void;
  /**
   * Called with a 'skipped-pem' finding (index -1, as it is no entry) for each block Go's PEM
   * decoder skips, e.g. `skipped a CERTIFICATE block at line 1 that does not parse as PEM:
   * invalid base64 data`.
   */
  onSkippedBlock?(finding: TrustBundleFinding): void;
}

/** Line numbers of increasing offsets of one text, counted once over the whole text. */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let counted = 0;
  return (offset) => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
      line++;
      counted = i + 1;
    }
    return line;
  };
}

export function validateTrustBundle(pem: string, options: ValidateTrustBundleOptions = {}): TrustBundleFinding[] {
  if (typeof pem !== 'string') return [entryFinding(-1, 'empty', 'at least one trust anchor must be provided')];
  if (utf8Length(pem) > maxTrustBundleSize) {
    return [entryFinding(-1, 'too-large', `may not be more than ${maxTrustBundleSize} bytes`)];
  }
  const findings: TrustBundleFinding[] = [];
  const byDer = new Map<string, number[]>();
  // Kubernetes numbers the blocks pem.Decode returns; skipped blocks take no number.
  let i = -1;
  const lineOf = lineCounter(pem);
  for (const entry of readPemEntries(pem)) {
    if (entry.kind === 'malformed') {
      if (options.onSkippedBlock) {
        const detail = `skipped a ${printableType(entry.type)} block at line ${lineOf(entry.offset)} that does not parse as PEM: ${entry.reason}`;
        options.onSkippedBlock(entryFinding(-1, 'skipped-pem', detail));
      }
      continue;
    }
    i++;
    if (entry.type !== 'CERTIFICATE') {
      findings.push(entryFinding(i, 'bad-block-type', `entry ${i} has bad block type: ${entry.type}`));
      continue;
    }
    if (entry.headers.size !== 0) {
      findings.push(entryFinding(i, 'pem-headers', `entry ${i} has PEM block headers`));
      continue;
    }
    const parsed = parseCertificate(entry.bytes, { minimal: true });
    if (!parsed.ok) {
      findings.push(entryFinding(i, 'not-x509', `entry ${i} does not parse as X.509`));
      continue;
    }
    const constraints = parsed.certificate.basicConstraints;
    if (!constraints.ca) {
      // Go reports a missing extension and cA=false alike ("does not have the CA bit set"); the
      // kind tells them apart, the detail stays Kubernetes' text.
      const kind = constraints.present ? 'not-ca' : 'no-basic-constraints';
      findings.push(entryFinding(i, kind, `entry ${i} does not have the CA bit set`));
      continue;
    }
    options.onCertificate?.(entry.bytes, parsed.certificate);
    const key = Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength).toString('latin1');
    const seen = byDer.get(key);
    if (seen === undefined) byDer.set(key, [i]);
    else seen.push(i);
  }
  // As Kubernetes: entry problems hide the (then possibly redundant) bundle-level findings.
  if (findings.length > 0) return findings;
  if (byDer.size === 0) return [entryFinding(-1, 'empty', 'at least one trust anchor must be provided')];
  for (const indices of byDer.values()) {
    if (indices.length > 1) {
      findings.push({
        index: indices[0],
        kind: 'duplicate',
        detail: `duplicate trust anchor (indices [${indices.join(' ')}])`,
        indices,
      });
    }
  }
  return findings;
}

/**
 * A block type as a message may show it: as written when it is printable ASCII, quoted with its
 * control and other characters escaped otherwise, so a type holding a CR or NUL cannot break the
 * Warning header or the log line that carries the message.
 */
function printableType(type: string): string {
  return /^[\x20-\x7e]*$/.test(type) ? type : JSON.stringify(type);
}
