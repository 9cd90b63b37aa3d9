import { createHash } from 'node:crypto';
import type { ApiObject } from '@plat/api-model';
import { trustAnchorFacts } from '@plat/x509';

/** What the wide table and the metrics show of a trustBundle. */
export interface TrustBundleSummary {
  readonly anchors: number;
  /** The earliest notAfter (ms); absent without a readable anchor. */
  readonly earliestNotAfter?: number;
}

/** A certificate validation accepted, with the times its parse read. */
export interface ValidatedCertificate {
  readonly der: Uint8Array;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** What validation of one object found for its warnings: the certificates and the skipped PEM blocks. */
export interface ValidatedBundle {
  readonly certs: ValidatedCertificate[];
  readonly skipped: string[];
  readonly skippedTotal: number;
}

/** Bound of the summaries one cache keeps (docs/operations.md). */
export const maxTrustBundleSummaries = 1024;

export const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The anchors' count and earliest notAfter of a trustBundle, parsed (@plat/x509's anchor facts). */
export function trustBundleSummary(pem: string): TrustBundleSummary {
  if (pem === '') return { anchors: 0 };
  const { anchors, earliestNotAfter } = trustAnchorFacts(pem);
  return earliestNotAfter ? { anchors: anchors.length, earliestNotAfter: earliestNotAfter.getTime() } : { anchors: anchors.length };
}

/**
 * What one ClusterTrustBundle resource remembers of the bundles it validated, owned by the
 * resource (and the metrics) that made it, never shared by the servers of a process:
 * - the parse of each object validated, for the warnings of the same write (read right after
 *   validation; weakly held, so it goes with the object);
 * - summaries by the SHA-256 of the trustBundle text, least recently used first: validation leaves
 *   one for each bundle it accepts, so that the watch feeding the metrics and the tables that show
 *   the bundle hash the text instead of parsing its certificates again (at most
 *   `maxTrustBundleSummaries`).
 */
export class ClusterTrustBundleCache {
  readonly #summaries = new Map<string, TrustBundleSummary>();
  readonly #validated = new WeakMap<ApiObject, ValidatedBundle>();

  #remember(digest: string, summary: TrustBundleSummary): TrustBundleSummary {
    this.#summaries.delete(digest);
    this.#summaries.set(digest, summary);
    if (this.#summaries.size > maxTrustBundleSummaries) this.#summaries.delete(this.#summaries.keys().next().value as string);
    return summary;
  }

  /** The summary of a trustBundle: remembered from validation, else parsed (and remembered). */
  summary(pem: string): TrustBundleSummary {
    if (pem === '') return { anchors: 0 };
    const digest = sha256Hex(pem);
    const known = this.#summaries.get(digest);
    return this.#remember(digest, known ?? trustBundleSummary(pem));
  }

  /** Keeps what validation of `obj` (with this trustBundle text) parsed. */
  keepValidated(obj: ApiObject, pem: string, validated: ValidatedBundle): void {
    this.#validated.set(obj, validated);
    const earliestNotAfter = Math.min(...validated.certs.map((c) => c.notAfter.getTime()));
    this.#remember(sha256Hex(pem), { anchors: validated.certs.length, earliestNotAfter });
  }

  validated(obj: ApiObject): ValidatedBundle | undefined {
    return this.#validated.get(obj);
  }
}
