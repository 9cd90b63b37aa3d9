import { StatusError, type Status } from '@plat/api-model';
import type { RestClient, WatchEvent } from '@plat/client';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { listSelectedBundles, noMatchError } from './resolve-trust-anchors.js';
import { clusterTrustBundlesPath, compileSelection, type CompiledSelection, type SelectableBundle, type TrustAnchorSelection } from './trust-anchor-selection.js';
import { bundleEntry, trustAnchorsOf, type BundleEntry, type TrustAnchors } from './trust-anchors.js';
import { TrustError } from './trust-error.js';

export interface WatchTrustAnchorsOptions {
  /** Ends the watch; the returned promise then resolves. */
  signal?: AbortSignal;
  /**
   * Called with the first anchors after the initial list, then whenever the digest changes (not
   * for changes that leave the anchor set as it is). Awaited: changes are delivered one at a
   * time, in order. A throw ends the watch with that error.
   */
  onChange: (anchors: TrustAnchors) => void | Promise<void>;
  /**
   * Problems the watch outlives: a failed request before its retry (`retryInMs`), or TrustError
   * `NoMatch` when a selection that is not optional stops matching (the last anchors stay).
   */
  onError?: (error: Error, info: { retryInMs?: number }) => void;
  /** No event or bookmark for this long means the connection is dead: reconnect (default 90 s; the server sends a bookmark every minute). */
  idleTimeoutMs?: number;
  /** Reconnection delays (default 800 ms doubling to 30 s, jittered). */
  backoff?: BackoffOptions;
  /** `timeoutSeconds` of each watch request (default a random 5–10 minutes, as client-go's reflector). */
  watchTimeoutSeconds?: number;
}

/** Before the first list succeeds these answers cannot get better by retrying: the watch ends with them. */
const fatalBeforeSync = new Set([400, 401, 403, 404, 422]);

/** An error thrown by the caller's onChange: never retried. */
class HandlerError extends Error {
  constructor(readonly original: unknown) {
    super('onChange failed');
  }
}

function statusCode(err: unknown): number | undefined {
  const e = err as { name?: string; code?: unknown };
  return e?.name === 'StatusError' && typeof e.code === 'number' ? e.code : undefined;
}

/**
 * Follows the anchors of a selection as an informer does: list, then watch from the list's
 * resourceVersion with bookmarks; re-watch from the last resourceVersion when a watch ends;
 * relist on 410 Gone (and after any error answer to a watch); reconnect with jittered
 * exponential backoff; treat a connection without any event or bookmark for `idleTimeoutMs` as
 * dead. `onChange` sees the anchors only when their digest changes (and once at the start).
 *
 * One terminal outcome: the promise resolves when the signal aborts, and rejects only with an
 * error retrying cannot fix: an invalid selection, a first list answered 400, 401, 403, 404 or
 * 422 (bad credentials or a server without the API), or an error thrown by `onChange`. After the
 * first list every failure is retried and the last anchors stay in force, as they do in an
 * informer's cache.
 */
export async function watchTrustAnchors(client: RestClient, selection: TrustAnchorSelection, options: WatchTrustAnchorsOptions): Promise<void> {
  const watcher = new TrustAnchorWatcher(client, compileSelection(selection), options);
  try {
    await watcher.run();
  } catch (err) {
    throw err instanceof HandlerError ? err.original : err;
  }
}

class TrustAnchorWatcher {
  private readonly entries = new Map<string, BundleEntry>();
  private resourceVersion = '';
  private synced = false;
  private emitted?: string;
  private reportedNoMatch = false;
  private readonly backoff: Backoff;

  constructor(
    private readonly client: RestClient,
    private readonly compiled: CompiledSelection,
    private readonly options: WatchTrustAnchorsOptions,
  ) {
    this.backoff = new Backoff(options.backoff);
  }

  async run(): Promise<void> {
    const signal = this.options.signal;
    let needList = true;
    while (!signal?.aborted) {
      try {
        if (needList) {
          await this.list();
          needList = false;
        }
        if (!this.compiled.listQuery) {
          // An absent label selector matches nothing: there is nothing to watch.
          await sleep(2 ** 31 - 1, signal);
          continue;
        }
        needList = await this.watchOnce();
      } catch (err) {
        if (signal?.aborted) return;
        if (err instanceof HandlerError) throw err;
        const code = statusCode(err);
        if (!this.synced && code !== undefined && fatalBeforeSync.has(code)) throw err;
        // An error answer means our resourceVersion or the watch itself is in question: start
        // over from a list, as the reflector does. A transport failure resumes the watch.
        if (code !== undefined || (err as { code?: string }).code === 'DecodeFailed') needList = true;
        if (code === 410) continue;
        const delay = this.backoff.next();
        this.options.onError?.(err as Error, { retryInMs: delay });
        await sleep(delay, signal);
      }
    }
  }

  private async list(): Promise<void> {
    const { entries, resourceVersion } = await listSelectedBundles(this.client, this.compiled, this.options.signal);
    this.entries.clear();
    for (const e of entries) this.entries.set(e.source.name, e);
    this.resourceVersion = resourceVersion;
    this.synced = true;
    this.backoff.reset();
    await this.emit();
  }

  /** One watch request; resolves true when a relist is needed (410 Gone). */
  private async watchOnce(): Promise<boolean> {
    const started = Date.now();
    let events = 0;
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const stream = this.client.watch<SelectableBundle | Status>({
      path: clusterTrustBundlesPath,
      query: { ...this.compiled.listQuery, resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      signal: this.options.signal,
      idleTimeoutMs: this.options.idleTimeoutMs ?? 90_000,
    });
    for await (const event of stream) {
      if (events++ === 0) this.backoff.reset();
      if (event.type === 'ERROR') {
        const status = event.object as Status;
        if (status.code === 410) return true;
        throw StatusError.fromStatus(status);
      }
      if (this.apply(event as WatchEvent<SelectableBundle>)) await this.emit();
    }
    if (events === 0 && Date.now() - started < 1000) {
      throw new TrustError('ShortWatch', 'very short watch: the server closed it within a second without an event');
    }
    return false;
  }

  /** Applies one event to the cache; true when the set of bundles changed. */
  private apply(event: WatchEvent<SelectableBundle>): boolean {
    const obj = event.object;
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    const name = obj.metadata?.name;
    if (event.type === 'BOOKMARK' || !name) return false;
    const previous = this.entries.get(name);
    if (event.type === 'DELETED' || !this.compiled.matches(obj)) {
      // A filtered watch shows an object that stops matching as DELETED; a server that sends
      // MODIFIED instead is handled the same way.
      return this.entries.delete(name);
    }
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return false;
    this.entries.set(name, bundleEntry(obj, previous));
    return true;
  }

  private async emit(): Promise<void> {
    const selection = this.compiled.selection;
    if (this.entries.size === 0 && !selection.optional) {
      // The kubelet keeps what it projected when the selection stops matching: so do we.
      if (!this.reportedNoMatch) this.options.onError?.(noMatchError(this.compiled), {});
      this.reportedNoMatch = true;
      return;
    }
    this.reportedNoMatch = false;
    const anchors = trustAnchorsOf(this.entries.values());
    if (anchors.digest === this.emitted) return;
    this.emitted = anchors.digest;
    try {
      await this.options.onChange(anchors);
    } catch (err) {
      throw new HandlerError(err);
    }
  }
}
