import type { RestClient } from '@plat/client';
import { resolveTrustAnchors } from './resolve-trust-anchors.js';
import type { TrustAnchorSelection } from './trust-anchor-selection.js';
import type { TrustAnchors } from './trust-anchors.js';
import { readTrustBundleFile, writeTrustBundleFile } from './trust-bundle-file.js';
import { watchTrustAnchors, type WatchTrustAnchorsOptions } from './watch-trust-anchors.js';

export interface SyncTrustBundleFileOptions extends Omit<WatchTrustAnchorsOptions, 'onChange'> {
  /** The file to keep equal to the canonical PEM of the selection. */
  file: string;
  /**
   * Called after each write of a new bundle (a service reload, say). Awaited; a throw is reported
   * through `onError` and the sync goes on.
   */
  onWrite?: (anchors: TrustAnchors) => void | Promise<void>;
}

/** Writes the anchors unless the file already holds exactly them; true when it wrote. */
async function writeIfChanged(file: string, anchors: TrustAnchors): Promise<boolean> {
  if ((await readTrustBundleFile(file)) === anchors.pem) return false;
  await writeTrustBundleFile(file, anchors.pem);
  return true;
}

/**
 * Keeps `file` equal to the canonical PEM of a selection while the signal lasts: the anchors are
 * watched (`watchTrustAnchors`: reconnects, relists, outlives server restarts), the file is
 * replaced atomically (mode 0644) only when the anchors' digest changes and its content differs,
 * and `onWrite` runs after each write. While a selection that is not optional matches nothing
 * the file keeps its last anchors, as the kubelet keeps a projected file.
 *
 * Resolves when the signal aborts; rejects with the watch's fatal errors and when the file cannot
 * be written (a supervisor restarting the sync is better than a stale file nobody notices).
 */
export async function syncTrustBundleFile(client: RestClient, selection: TrustAnchorSelection, options: SyncTrustBundleFileOptions): Promise<void> {
  const { file, onWrite, ...watchOptions } = options;
  await watchTrustAnchors(client, selection, {
    ...watchOptions,
    onChange: async (anchors) => {
      if (!(await writeIfChanged(file, anchors))) return;
      try {
        await onWrite?.(anchors);
      } catch (err) {
        options.onError?.(err as Error, {});
      }
    },
  });
}

/** Resolves a selection once and writes its anchors to `file` if they differ from its content. */
export async function writeTrustBundleFileOnce(
  client: RestClient,
  selection: TrustAnchorSelection,
  options: { file: string; signal?: AbortSignal },
): Promise<{ anchors: TrustAnchors; written: boolean }> {
  const anchors = await resolveTrustAnchors(client, selection, { signal: options.signal });
  return { anchors, written: await writeIfChanged(options.file, anchors) };
}
