import { readPemEntries } from './pem.js';
import type { PemBlock } from './pem.js';

export type PemBundleProblemKind = 'malformed' | 'not-certificate' | 'headers' | 'duplicate' | 'empty';

export interface PemBundleProblem {
  readonly kind: PemBundleProblemKind;
  /** Entry index; -1 for 'empty'; the first index for 'duplicate'. */
  readonly index: number;
  /** For 'duplicate': every index holding the same bytes. */
  readonly indices?: readonly number[];
  readonly message: string;
}

export interface PemBundle {
  /** Every decoded block, whatever its type, in input order. */
  readonly blocks: readonly PemBlock[];
  readonly problems: readonly PemBundleProblem[];
}

/**
 * Reads a bundle that should hold only header-free CERTIFICATE blocks, and reports each deviation
 * with its entry index: malformed PEM, other block types, PEM headers, the same block twice, and
 * a bundle with no block at all. Text outside blocks is skipped. Never throws.
 */
export function readPemBundle(text: string): PemBundle {
  const blocks: PemBlock[] = [];
  const problems: PemBundleProblem[] = [];
  const byBytes = new Map<string, number[]>();
  for (const entry of readPemEntries(text)) {
    const i = entry.index;
    if (entry.kind === 'malformed') {
      problems.push({ kind: 'malformed', index: i, message: `entry ${i} is not valid PEM: ${entry.reason}` });
      continue;
    }
    blocks.push(entry);
    if (entry.type !== 'CERTIFICATE') {
      problems.push({ kind: 'not-certificate', index: i, message: `entry ${i} has block type ${entry.type}, not CERTIFICATE` });
    }
    if (entry.headers.size > 0) {
      problems.push({ kind: 'headers', index: i, message: `entry ${i} has PEM block headers` });
    }
    const key = entry.type + '\n' + Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength).toString('latin1');
    const seen = byBytes.get(key);
    if (seen === undefined) byBytes.set(key, [i]);
    else seen.push(i);
  }
  for (const indices of byBytes.values()) {
    if (indices.length > 1) {
      problems.push({ kind: 'duplicate', index: indices[0], indices, message: `entries ${indices.join(', ')} hold the same block` });
    }
  }
  if (blocks.length === 0 && problems.length === 0) problems.push({ kind: 'empty', index: -1, message: 'no PEM block found' });
  return { blocks, problems };
}
