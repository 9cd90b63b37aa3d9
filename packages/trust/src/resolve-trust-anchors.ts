import type { RestClient } from '@plat/client';
import { clusterTrustBundlesPath, compileSelection, type CompiledSelection, type SelectableBundle, type TrustAnchorSelection } from './trust-anchor-selection.js';
import { bundleEntry, trustAnchorsOf, type BundleEntry, type TrustAnchors } from './trust-anchors.js';
import { TrustError } from './trust-error.js';

export interface ResolveOptions {
  signal?: AbortSignal;
}

/** Items per LIST page, as kubectl's default --chunk-size. */
export const listChunkSize = 500;

interface BundleList {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: SelectableBundle[];
}

/** The kubelet's error when a selection that is not optional matches nothing. */
export function noMatchError(compiled: CompiledSelection): TrustError {
  return new TrustError('NoMatch', `combination of signerName and labelSelector matched zero ClusterTrustBundles (${compiled.description})`);
}

/**
 * Lists the bundles of a selection as one consistent snapshot (pages of `listChunkSize` joined by
 * their continue token) and returns them with the list's resourceVersion.
 */
export async function listSelectedBundles(client: RestClient, compiled: CompiledSelection, signal?: AbortSignal): Promise<{ entries: BundleEntry[]; resourceVersion: string }> {
  if (!compiled.listQuery) return { entries: [], resourceVersion: '' };
  const entries: BundleEntry[] = [];
  let resourceVersion = '';
  let cont: string | undefined;
  do {
    const res = await client.request<BundleList>({ path: clusterTrustBundlesPath, query: { ...compiled.listQuery, limit: listChunkSize, continue: cont }, signal });
    for (const item of res.body.items ?? []) if (compiled.matches(item)) entries.push(bundleEntry(item));
    resourceVersion = res.body.metadata?.resourceVersion ?? resourceVersion;
    cont = res.body.metadata?.continue || undefined;
  } while (cont);
  return { entries, resourceVersion };
}

/**
 * The anchors a selection stands for right now, merged as the kubelet's clusterTrustBundle
 * projection merges them: one bundle by name (GET; a missing one is the server's NotFound), or
 * every bundle of a signer matching the label selector (LIST with `fieldSelector=spec.signerName=`
 * and the selector in query form). A selection that matches nothing rejects with TrustError
 * `NoMatch`, or gives the empty set when `optional`.
 */
export async function resolveTrustAnchors(client: RestClient, selection: TrustAnchorSelection, options: ResolveOptions = {}): Promise<TrustAnchors> {
  const compiled = compileSelection(selection);
  let entries: BundleEntry[];
  if (selection.name !== undefined) {
    try {
      const res = await client.request<SelectableBundle>({ path: `${clusterTrustBundlesPath}/${encodeURIComponent(selection.name)}`, signal: options.signal });
      entries = [bundleEntry(res.body)];
    } catch (err) {
      if (!(selection.optional && (err as { status?: { reason?: string } }).status?.reason === 'NotFound')) throw err;
      entries = [];
    }
  } else {
    ({ entries } = await listSelectedBundles(client, compiled, options.signal));
    if (entries.length === 0 && !selection.optional) throw noMatchError(compiled);
  }
  return trustAnchorsOf(entries);
}
