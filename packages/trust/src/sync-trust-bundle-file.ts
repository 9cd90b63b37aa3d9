import type { RestClient } from '@plat/client';
import { filterTrustAnchors, type TrustAnchorFilter } from './filter-trust-anchors.js';
import { resolveTrustAnchors } from './resolve-trust-anchors.js';
import type { TrustAnchorSelection } from './trust-anchor-selection.js';
import type { TrustAnchors } from './trust-anchors.js';
import { writeTrustAnchorsFile, type TrustAnchorsFileTarget } from './trust-anchors-file.js';
import { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';

export interface SyncTrustBundleFileOptions extends Omit<WatchTrustAnchorsOptions, 'onChange'> {
  /** A file to keep equal to the canonical PEM of the selection (the same as a `pem` target). */
  file?: string;
  /** Files in any format, all kept current from the one watch. */
  targets?: TrustAnchorsFileTarget[];
  /** The consumer's filter: expired anchors left out, anchors expiring soon warned about. */
  filter?: TrustAnchorFilter;
  /** The filter's warnings, each time the anchors written change. */
  onWarning?: (warning: string) => void;
  /**
   * Called after each write of a new bundle (a service reload, say), with the anchors written
   * and the targets that changed. Awaited; a throw is reported through `onError` and the sync goes on.
   */
  onWrite?: (anchors: TrustAnchors, written: TrustAnchorsFileTarget[]) => void | Promise<void>;
}

/** The longest delay setTimeout takes; a later expiry is re-checked after it. */
const maxTimerMs = 2 ** 31 - 1;

function targetsOf(options: Pick<SyncTrustBundleFileOptions, 'file' | 'targets'>): TrustAnchorsFileTarget[] {
  return [...(options.file === undefined ? [] : [{ file: options.file }]), ...(options.targets ?? [])];
}

/** Filters the anchors, then writes every target that does not hold them yet; the targets written. */
async function writeTargets(targets: TrustAnchorsFileTarget[], raw: TrustAnchors, options: Pick<SyncTrustBundleFileOptions, 'filter' | 'onWarning'>) {
  const filtered = filterTrustAnchors(raw, options.filter);
  const written: TrustAnchorsFileTarget[] = [];
  for (const target of targets) if (await writeTrustAnchorsFile(target, filtered.anchors)) written.push(target);
  if (written.length > 0) for (const w of filtered.warnings) options.onWarning?.(w);
  return { filtered, written };
}

/**
 * Keeps files equal to the anchors of a selection while the signal lasts: the anchors are watched
 * once (`watchTrustAnchors`: reconnects, relists, outlives server restarts), filtered as the
 * consumer asks, and each target (`file` as PEM, `targets` in any format) is replaced atomically
 * (mode 0644) when its content would change; `onWrite` runs after each change. With
 * `filter.excludeExpired` an anchor is also left out when it expires while nothing else changes.
 * While a selection that is not optional matches nothing the files keep their last anchors, as
 * the kubelet keeps a projected file.
 *
 * Resolves when the signal aborts; rejects with the watch's fatal errors and when a file cannot
 * be written (a supervisor restarting the sync is better than a stale file nobody notices).
 */
export async function syncTrustBundleFile(client: RestClient, selection: TrustAnchorSelection, options: SyncTrustBundleFileOptions): Promise<void> {
  const { file: _file, targets: _targets, filter, onWarning, onWrite, ...watchOptions } = options;
  const targets = targetsOf(options);
  let timer: NodeJS.Timeout | undefined;
  let queue = Promise.resolve();
  let failed: unknown;
  const expiry = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, expiry.signal]) : expiry.signal;
  const apply = async (raw: TrustAnchors) => {
    clearTimeout(timer);
    const { filtered, written } = await writeTargets(targets, raw, { filter, onWarning });
    if (filtered.nextExpiry) {
      // Re-filter when the next kept anchor expires; writes stay in order behind the watch's.
      const delay = Math.min(Math.max(filtered.nextExpiry.getTime() - Date.now(), 0), maxTimerMs);
      timer = setTimeout(() => {
        queue = queue.then(() => apply(raw)).catch((err: unknown) => {
          failed = err;
          expiry.abort();
        });
      }, delay);
      timer.unref();
    }
    if (written.length === 0) return;
    try {
      await onWrite?.(filtered.anchors, written);
    } catch (err) {
      options.onError?.(err as Error, {});
    }
  };
  try {
    await watchTrustAnchors(client, selection, {
      ...watchOptions,
      signal,
      onChange: (anchors) => (queue = queue.then(() => apply(anchors))),
    });
    await queue;
  } finally {
    clearTimeout(timer);
  }
  if (failed !== undefined) throw failed;
}

/** Resolves a selection once and writes its anchors to the targets that differ. */
export async function writeTrustBundleFileOnce(
  client: RestClient,
  selection: TrustAnchorSelection,
  options: { file?: string; targets?: TrustAnchorsFileTarget[]; filter?: TrustAnchorFilter; onWarning?: (warning: string) => void; signal?: AbortSignal },
): Promise<{ anchors: TrustAnchors; written: boolean; writtenTargets: TrustAnchorsFileTarget[] }> {
  const raw = await resolveTrustAnchors(client, selection, { signal: options.signal });
  const { filtered, written } = await writeTargets(targetsOf(options), raw, options);
  return { anchors: filtered.anchors, written: written.length > 0, writtenTargets: written };
}
