import type { Registry } from 'prom-client';
import { clusterTrustBundleApiVersion, clusterTrustBundleResource, type ApiObject, type ClusterTrustBundle } from '@plat/api-model';
import { Reflector, collectionPrefix, type ReflectorLogger, type Storage } from '@plat/storage';
import { FastGauge } from '@plat/server';
import { ClusterTrustBundleCache } from './cluster-trust-bundle-cache.js';

/**
 * Most signer names with series of their own (each has one series per gauge); the bundles of
 * further signers are counted together under `signer_name="(other)"` until a slot frees up.
 */
export const maxClusterTrustBundleSignerSeries = 100;

/** The signer_name of the series that pools the signers beyond the cap (no signer name has parentheses). */
export const otherSignersLabel = '(other)';

export const clusterTrustBundleMetricNames = {
  anchors: 'plat_clustertrustbundle_anchors',
  bytes: 'plat_clustertrustbundle_bytes',
  earliestNotAfter: 'plat_clustertrustbundle_earliest_not_after_timestamp_seconds',
} as const;

/** What one stored bundle adds to its signer's series. */
interface BundleEntry {
  readonly signer: string;
  readonly series: SignerSeries;
  readonly anchors: number;
  readonly bytes: number;
  /** Earliest notAfter in ms; Infinity for a bundle without a readable anchor. */
  readonly notAfter: number;
}

interface SignerSeries {
  readonly label: string;
  readonly bundles: Set<BundleEntry>;
  anchors: number;
  bytes: number;
  earliest: number;
}

/**
 * The per-signer aggregates of the stored ClusterTrustBundles: anchors, bytes of trustBundle and
 * the earliest notAfter. Fed by a reflector: a stored change of trustBundle costs a hash of the
 * text when the resource sharing `cache` validated it, a parse otherwise; a scrape neither. Memory is one small entry per bundle plus at most `maxSignerSeries` + 1 series.
 */
export class ClusterTrustBundleSignerStats {
  private readonly bundles = new Map<string, BundleEntry>();
  /** Signer name -> its series (its own, or the pooled one) and how many bundles it has. */
  private readonly signers = new Map<string, { series: SignerSeries; count: number }>();
  private ownSeries = 0;
  private other: SignerSeries | undefined;

  constructor(
    private readonly maxSignerSeries = maxClusterTrustBundleSignerSeries,
    private readonly cache = new ClusterTrustBundleCache(),
  ) {}

  replace(items: readonly ApiObject[]): void {
    this.bundles.clear();
    this.signers.clear();
    this.ownSeries = 0;
    this.other = undefined;
    for (const item of items) this.upsert(item);
  }

  upsert(obj: ApiObject, prev?: ApiObject): void {
    const name = obj.metadata?.name ?? '';
    const spec = (obj as ClusterTrustBundle).spec;
    const existing = this.bundles.get(name);
    // signerName is immutable: a change that keeps trustBundle (labels, managedFields) changes nothing here.
    if (existing && prev && (prev as ClusterTrustBundle).spec?.trustBundle === spec?.trustBundle && existing.signer === (spec?.signerName ?? '')) return;
    if (existing) this.remove(name, existing);
    this.add(name, spec);
  }

  delete(obj: ApiObject): void {
    const name = obj.metadata?.name ?? '';
    const existing = this.bundles.get(name);
    if (existing) this.remove(name, existing);
  }

  /**
   * The current series by signer_name label (sorted), with their values (earliestNotAfter in
   * Unix seconds, absent without anchors).
   */
  series(): { signerName: string; anchors: number; bytes: number; earliestNotAfter?: number }[] {
    const all = [...new Set([...this.signers.values()].map((s) => s.series))].sort((x, y) => (x.label < y.label ? -1 : x.label > y.label ? 1 : 0));
    return all.map((s) => ({
      signerName: s.label,
      anchors: s.anchors,
      bytes: s.bytes,
      ...(Number.isFinite(s.earliest) ? { earliestNotAfter: Math.floor(s.earliest / 1000) } : {}),
    }));
  }

  private add(name: string, spec: ClusterTrustBundle['spec'] | undefined): void {
    const signer = spec?.signerName ?? '';
    const pem = typeof spec?.trustBundle === 'string' ? spec.trustBundle : '';
    const summary = this.cache.summary(pem);
    let slot = this.signers.get(signer);
    if (!slot) {
      slot = { series: this.newSeriesFor(signer), count: 0 };
      this.signers.set(signer, slot);
    }
    slot.count++;
    const entry: BundleEntry = {
      signer,
      series: slot.series,
      anchors: summary.anchors,
      bytes: Buffer.byteLength(pem, 'utf8'),
      notAfter: summary.earliestNotAfter ?? Infinity,
    };
    this.bundles.set(name, entry);
    const s = slot.series;
    s.bundles.add(entry);
    s.anchors += entry.anchors;
    s.bytes += entry.bytes;
    if (entry.notAfter < s.earliest) s.earliest = entry.notAfter;
  }

  private newSeriesFor(signer: string): SignerSeries {
    const fresh = (label: string): SignerSeries => ({ label, bundles: new Set(), anchors: 0, bytes: 0, earliest: Infinity });
    if (this.ownSeries < this.maxSignerSeries) {
      this.ownSeries++;
      return fresh(signer);
    }
    this.other ??= fresh(otherSignersLabel);
    return this.other;
  }

  private remove(name: string, entry: BundleEntry): void {
    this.bundles.delete(name);
    const s = entry.series;
    s.bundles.delete(entry);
    s.anchors -= entry.anchors;
    s.bytes -= entry.bytes;
    if (entry.notAfter === s.earliest) {
      s.earliest = Infinity;
      for (const b of s.bundles) if (b.notAfter < s.earliest) s.earliest = b.notAfter;
    }
    const slot = this.signers.get(entry.signer)!;
    if (--slot.count > 0) return;
    this.signers.delete(entry.signer);
    if (s === this.other) {
      if (s.bundles.size === 0) this.other = undefined;
    } else this.ownSeries--;
  }
}

export interface ClusterTrustBundleMetrics {
  readonly stats: ClusterTrustBundleSignerStats;
  /** Resolves once the first list was counted. */
  readonly synced: Promise<void>;
  /** Ends the watch and takes the gauges off the registry. */
  stop(): Promise<void>;
}

/**
 * Gauges per signer name on `registry` (the server's /metrics), kept current from the store's
 * ClusterTrustBundles: a list at start, then every create, update and delete through a watch
 * (a re-list after a watch error). A scrape reads the aggregates; it parses nothing.
 */
export function startClusterTrustBundleMetrics(opts: {
  storage: Storage;
  registry: Registry;
  logger?: ReflectorLogger;
  maxSignerSeries?: number;
  /** The cache of the ClusterTrustBundle resource the server serves (clusterTrustBundleResource's `cache`), so a validated bundle is not parsed again. */
  cache?: ClusterTrustBundleCache;
}): ClusterTrustBundleMetrics {
  const stats = new ClusterTrustBundleSignerStats(opts.maxSignerSeries, opts.cache);
  const gauge = (name: string, help: string, read: (s: ReturnType<ClusterTrustBundleSignerStats['series']>[number]) => number | undefined) =>
    new FastGauge({
      name,
      help,
      labelNames: ['signer_name'],
      registry: opts.registry,
      collect(g) {
        g.reset();
        for (const s of stats.series()) {
          const value = read(s);
          if (value !== undefined) g.labels(s.signerName).set(value);
        }
      },
    });
  const names = clusterTrustBundleMetricNames;
  gauge(names.anchors, 'Trust anchors (certificates) in the ClusterTrustBundles of each signer name ("" for bundles without one).', (s) => s.anchors);
  gauge(names.bytes, 'Bytes of spec.trustBundle summed over the ClusterTrustBundles of each signer name.', (s) => s.bytes);
  gauge(names.earliestNotAfter, 'The earliest notAfter of the trust anchors of each signer name, as a Unix timestamp.', (s) => s.earliestNotAfter);
  const group = clusterTrustBundleApiVersion.split('/')[0]!;
  const reflector = new Reflector(opts.storage, collectionPrefix(group, clusterTrustBundleResource), stats, opts.logger ? { logger: opts.logger } : {}).start();
  return {
    stats,
    synced: reflector.synced,
    async stop() {
      await reflector.stop();
      for (const name of Object.values(names)) opts.registry.removeSingleMetric(name);
    },
  };
}
