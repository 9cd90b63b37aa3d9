import { StatusError, newBadRequest, newServiceUnavailable } from '@plat/api-model';
import type { Status } from '@plat/api-model';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Predicate,
  Storage,
  StorageMemoryStats,
  StoredObject,
  TryUpdate,
  UpdateOptions,
  Watch,
  WatchEvent,
  WatchOptions,
} from './interface.js';
import { initialEventsEndAnnotation } from './interface.js';
import { scheduleBookmarks } from './bookmark-schedule.js';
import { encodeContinue } from './continue-token.js';
import { bookmarkObject, deepFreeze } from './mvcc-storage.js';
import { parseResourceVersion } from './resource-version.js';
import { notFound, tooLargeResourceVersion, tooOldResourceVersion } from './storage-errors.js';
import { normalizePrefix, prefixEnd, validateKey } from './storage-key.js';
import { WatchStream, defaultMaxQueuedEvents } from './watch-stream.js';
import { EventWindow, type WindowEvent } from './event-window.js';
import { WatchEventDrops, type WatchDropLogger } from './watch-event-drops.js';

/** Events the window keeps by default (kube's cacher sizes its window between 100 and 102,400 events). */
export const defaultWatchCacheCapacity = 10_000;
/** Bytes the window keeps by default: 64 MiB of objects' stored JSON. */
export const defaultWatchCacheCapacityBytes = 64 * 1024 * 1024;
/** How long a read waits for the cache's events when the backend confirms no progress (see waitMs). */
const unconfirmedWaitMs = 250;

export interface WatchCacheOptions {
  /** Recent events kept for watchers resuming from a revision (default 10 000). */
  capacity?: number;
  /**
   * Bytes of recent events kept (their objects' stored JSON; default 64 MiB): past either bound
   * the oldest events go, and watches from before them answer 410.
   */
  capacityBytes?: number;
  /** Events one watcher may have queued before it is closed with an ERROR event. */
  maxQueuedEvents?: number;
  /** Default bookmark period for watches with allowWatchBookmarks (ms, default 60 000). */
  bookmarkIntervalMs?: number;
  /** How long a read for a newer revision waits for the cache to catch up (default 3000 ms, as kube-apiserver). */
  freshnessTimeoutMs?: number;
  /** Period of the backend's progress bookmarks that advance the cache revision without writes (default 1000 ms). */
  progressIntervalMs?: number;
  /** Where a refused watch event (not newer than the last one applied or delivered) is logged. */
  logger?: WatchDropLogger;
}

/** A cached object, deep-frozen: shared by every reader below its top level and metadata, and whole by read-only lists. */
interface Entry {
  readonly key: string;
  readonly obj: StoredObject;
}

function entryOf(key: string, obj: StoredObject): Entry {
  return { key, obj: deepFreeze(obj) };
}

/**
 * What a reader gets: a fresh top level and metadata (with its own labels and annotations), so
 * the server may set kind/apiVersion, drop managedFields or stamp a resourceVersion; nested
 * values (spec, status, ...) are shared and frozen, so an accidental write throws instead of
 * changing the cache. Copying 10,000 objects whole would cost more than the list itself.
 */
function copy(e: Entry): StoredObject {
  const o = e.obj;
  const meta = o.metadata;
  if (!meta) return { ...o };
  return {
    ...o,
    metadata: {
      ...meta,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
    },
  };
}

function copyAt(e: Entry, revision: number): StoredObject {
  const o = copy(e);
  o.metadata = { ...o.metadata, resourceVersion: String(revision) };
  return o;
}

interface CachedEvent extends WindowEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  entry: Entry;
  prev?: Entry;
}

interface CacheWatcher {
  start: string;
  end: string;
  predicate?: Predicate;
  stream: WatchStream;
  /** The revision of the last event delivered (or the watch's start). */
  last: number;
  /** Changes queued for it and not delivered yet (deliveries in turns, see `deliverTurnSize`). */
  queued: number;
}

/**
 * A change reaches at most this many watchers in one turn of the event loop; the rest get it in
 * the next turns (setImmediate), in order, before any later change. Waking 10,000 watchers at
 * once held the event loop for one busy window of about 360 ms of CPU per change (the watchers'
 * filters, their streams' continuations and their HTTP/2 writes), and every request arriving
 * meanwhile waited for all of it: tools/bench/trust/watch-10k.mjs, quiet machine, GET p99 at
 * 200/s during fan-out 245–293 ms. Turns of 500 keep each window near 20 ms.
 */
export const deliverTurnSize = 500;

/** The index of the first entry whose key is not below `x`. */
function lowerBound(arr: readonly Entry[], x: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]!.key < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A watch cache above any Storage: the current objects and a window of recent events in memory,
 * fed by one backend watch. It serves get (resourceVersion "0" or "N"), list (""/"0"/NotOlderThan,
 * first pages included) and every watch from memory, so N watchers cost one backend watch.
 * Writes, quorum gets, Exact lists and continued pages go to the backend, whose snapshot at the
 * cache's revision is the same one the cache served. Like kube-apiserver's cacher, a watch from
 * a revision older than the window answers 410, and a slow watcher is closed with an ERROR event.
 */
export class WatchCache implements Storage {
  private readonly maxQueuedEvents: number;
  private readonly bookmarkIntervalMs: number;
  private readonly freshnessTimeoutMs: number;
  private readonly progressIntervalMs: number;

  private readonly objects = new Map<string, Entry>();
  /**
   * The entries of `objects` in key order. A list walks the range of its prefix here, found by
   * two binary searches, and reads each object from its entry: no map lookup and no comparison
   * of a long key with the range's end per item. What it buys: the walk of a label-selected list
   * over 1,001 objects, in-process, takes 20–23 µs instead of 53–60 (docs/performance.md,
   * "apiserver").
   */
  private sorted: Entry[] = [];
  private readonly events: EventWindow<CachedEvent>;
  /** Every change up to rev has been applied. */
  private rev = 0;
  /** The revision of the last change applied (bookmarks do not move it). */
  private lastApplied = 0;
  /** A watch must start at or above this revision. */
  private floor = 0;
  private isReady = false;
  private closed = false;
  private upstream: Watch | undefined;
  private readonly watchers = new Set<CacheWatcher>();
  /** Changes still being delivered to the watchers of their time, oldest first (`deliverTurnSize`). */
  private readonly queuedChanges: Array<{ ev: CachedEvent; watchers: CacheWatcher[]; next: number }> = [];
  private deliveryTurn: NodeJS.Immediate | undefined;
  private waiters: Array<{ rev: number; resolve: (fresh: boolean) => void }> = [];
  private initialSync: Promise<void>;
  private lastProgressRequest = 0;
  private readonly drops: WatchEventDrops;

  constructor(
    private readonly backend: Storage,
    opts: WatchCacheOptions = {},
  ) {
    this.events = new EventWindow(opts.capacity ?? defaultWatchCacheCapacity, opts.capacityBytes ?? defaultWatchCacheCapacityBytes);
    this.maxQueuedEvents = opts.maxQueuedEvents ?? defaultMaxQueuedEvents;
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    this.freshnessTimeoutMs = opts.freshnessTimeoutMs ?? 3000;
    this.progressIntervalMs = opts.progressIntervalMs ?? 1000;
    this.drops = new WatchEventDrops(opts.logger);
    this.initialSync = this.sync(true);
    // A failed first load is reported by open()/synced(); keep it from being an unhandled rejection.
    this.initialSync.catch(() => undefined);
  }

  /** Builds a cache over `backend` and waits until it holds the backend's current state. */
  static async open(backend: Storage, opts: WatchCacheOptions = {}): Promise<WatchCache> {
    const cache = new WatchCache(backend, opts);
    await cache.initialSync;
    return cache;
  }

  /** Waits for the first sync (constructor callers). */
  synced(): Promise<void> {
    return this.initialSync;
  }

  /** The revision the cache has applied every change up to. */
  get revision(): number {
    return this.rev;
  }

  // ---- feeding the cache ----

  /** Loads the current state through one backend watch with initial events, then follows it. */
  private async sync(first: boolean): Promise<void> {
    let attempt = 0;
    for (;;) {
      if (this.closed) return;
      try {
        const w = await this.backend.watch('/', {
          sendInitialEvents: true,
          allowWatchBookmarks: true,
          bookmarkIntervalMs: this.progressIntervalMs,
          // The cache is the only consumer and keeps up; a burst must not cut it off.
          maxQueuedEvents: Number.MAX_SAFE_INTEGER,
          maxQueuedBytes: Number.MAX_SAFE_INTEGER,
        });
        this.upstream = w;
        const it = w[Symbol.asyncIterator]();
        this.objects.clear();
        const loaded: Entry[] = [];
        for (;;) {
          const r = await it.next();
          if (r.done) throw newServiceUnavailable('backend watch ended during the initial sync');
          const e = r.value;
          if (e.type === 'ADDED' && e.key) {
            const entry = entryOf(e.key, e.object as StoredObject);
            this.objects.set(e.key, entry);
            loaded.push(entry);
          } else if (e.type === 'BOOKMARK') {
            const meta = (e.object as StoredObject).metadata;
            if (meta?.annotations?.[initialEventsEndAnnotation] === 'true') {
              // Sorted by UTF-16 code units, as `<` compares keys in lowerBound.
              this.sorted = loaded.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
              this.events.clear();
              this.rev = Number(meta.resourceVersion);
              this.lastApplied = this.rev;
              this.floor = this.rev;
              break;
            }
          } else if (e.type === 'ERROR') {
            const status = e.object as Status;
            throw new StatusError({ ...status, message: status.message ?? 'backend watch failed' });
          }
        }
        this.isReady = true;
        this.resolveWaiters();
        void this.follow(it);
        return;
      } catch (err) {
        if (this.closed) return;
        this.upstream?.stop();
        // The first load reports the failure to open(); later reloads retry with backoff while
        // reads pass through to the backend (and answer 503 while it is unreachable).
        if (first) throw err;
        attempt++;
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** Math.min(attempt, 6))));
      }
    }
  }

  private async follow(it: AsyncIterator<WatchEvent>): Promise<void> {
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        const e = r.value;
        if (e.type === 'BOOKMARK') {
          this.advance(Number((e.object as StoredObject).metadata?.resourceVersion));
        } else if (e.type === 'ERROR') {
          break;
        } else if (e.key) {
          this.apply(e.type, e.key, e.object as StoredObject, e.prevObject, e.size);
        }
      }
    } finally {
      if (!this.closed) this.reinitialize();
    }
  }

  /** The backend watch broke: close every watcher (they resume from their last revision) and reload. */
  private reinitialize(): void {
    this.isReady = false;
    this.flushQueued();
    for (const w of [...this.watchers]) w.stream.finish();
    this.initialSync = this.sync(false);
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string, obj: StoredObject, prevObject?: StoredObject, size?: number): void {
    const revision = Number(obj.metadata?.resourceVersion);
    // A change at or below the last one applied would undo a later state (a deleted object
    // coming back) and go to every watcher again. (Compared with the last change, not with `rev`:
    // etcd before 3.4.24 may send a requested progress notification ahead of events still on the
    // stream, etcd-io/etcd#15220, and those events must still be applied.)
    if (!(revision > this.lastApplied)) {
      this.drops.record({ layer: 'watch-cache', type, key, revision, lastDelivered: this.lastApplied });
      return;
    }
    this.lastApplied = revision;
    const entry = entryOf(key, obj);
    const old = this.objects.get(key);
    const prev = old ?? (prevObject ? entryOf(key, prevObject) : undefined);
    if (type === 'DELETED') {
      if (old) {
        this.objects.delete(key);
        const i = lowerBound(this.sorted, key);
        if (this.sorted[i]?.key === key) this.sorted.splice(i, 1);
      }
    } else {
      const i = lowerBound(this.sorted, key);
      if (this.sorted[i]?.key === key) this.sorted[i] = entry;
      else this.sorted.splice(i, 0, entry);
      this.objects.set(key, entry);
    }
    const ev: CachedEvent = { type, key, revision, entry, prev: type === 'ADDED' ? undefined : prev, size: size ?? JSON.stringify(obj).length };
    const dropped = this.events.push(ev);
    if (dropped !== undefined) this.floor = dropped;
    if (this.queuedChanges.length === 0 && this.watchers.size <= deliverTurnSize) {
      for (const w of this.watchers) this.deliver(w, ev);
    } else {
      // Those watching now get it, in turns; a watch registered later replays it from the window.
      const watchers = [...this.watchers];
      for (const w of watchers) w.queued++;
      this.queuedChanges.push({ ev, watchers, next: 0 });
      if (this.queuedChanges.length === 1) this.deliverQueued(deliverTurnSize);
    }
    this.advance(revision);
  }

  private advance(revision: number): void {
    if (revision > this.rev) this.rev = revision;
    this.resolveWaiters();
  }

  private resolveWaiters(): void {
    if (!this.waiters.length) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.isReady && w.rev <= this.rev) w.resolve(true);
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves true once the cache has applied `revision`, false after `timeoutMs`. */
  private waitFresh(revision: number, timeoutMs = this.freshnessTimeoutMs): Promise<boolean> {
    if (this.isReady && revision <= this.rev) return Promise.resolve(true);
    // The revision may have been written outside the cached range: ask for a progress bookmark.
    const now = Date.now();
    if (this.backend.requestProgress && now - this.lastProgressRequest > 50) {
      this.lastProgressRequest = now;
      this.backend.requestProgress().catch(() => undefined);
    }
    return new Promise((resolve) => {
      const waiter = {
        rev: revision,
        resolve: (fresh: boolean) => {
          clearTimeout(timer);
          resolve(fresh);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  /** Waits for `revision` or answers 504 Too large resource version, as the cacher does. */
  private async requireFresh(revision: number): Promise<void> {
    if (!(await this.waitFresh(revision))) throw tooLargeResourceVersion(revision, this.rev);
  }

  /**
   * How long a read waits for the cache to reach a revision. A backend that cannot confirm
   * progress (etcd before 3.4.31 and 3.5.13: Storage.confirmsProgress) moves the cache only with
   * events, and a revision written outside the cached range never comes: such a wait is short,
   * and the backend answers after it.
   */
  private waitMs(): number {
    return this.confirmsProgress() ? this.freshnessTimeoutMs : unconfirmedWaitMs;
  }

  /**
   * Waits for `revision`: true once the cache holds it; false when the backend should answer
   * instead (it confirms no progress); 504 Too large resource version after the freshness timeout
   * otherwise, as the cacher answers.
   */
  private async reach(revision: number): Promise<boolean> {
    if (this.confirmsProgress()) await this.requireFresh(revision);
    else if (!(await this.waitFresh(revision, unconfirmedWaitMs))) return false;
    return true;
  }

  /** Delivers queued changes to at most `budget` watchers, then leaves the rest for the next turn. */
  private deliverQueued(budget: number): void {
    while (budget > 0 && this.queuedChanges.length > 0) {
      const change = this.queuedChanges[0];
      const end = Math.min(change.watchers.length, change.next + budget);
      budget -= end - change.next;
      for (; change.next < end; change.next++) {
        const w = change.watchers[change.next];
        w.queued--;
        if (this.watchers.has(w)) this.deliver(w, change.ev);
      }
      if (change.next === change.watchers.length) this.queuedChanges.shift();
    }
    if (this.queuedChanges.length > 0 && !this.deliveryTurn) {
      this.deliveryTurn = setImmediate(() => {
        this.deliveryTurn = undefined;
        this.deliverQueued(deliverTurnSize);
      });
    }
  }

  /** Delivers every queued change now (before watchers are finished). */
  private flushQueued(): void {
    if (this.deliveryTurn) clearImmediate(this.deliveryTurn);
    this.deliveryTurn = undefined;
    this.deliverQueued(Infinity);
  }

  private deliver(w: CacheWatcher, ev: CachedEvent): void {
    if (ev.key < w.start || ev.key >= w.end) return;
    if (ev.revision <= w.last) {
      this.drops.record({ layer: 'watch-cache', type: ev.type, key: ev.key, revision: ev.revision, lastDelivered: w.last });
      return;
    }
    w.last = ev.revision;
    const p = w.predicate;
    if (ev.type === 'ADDED') {
      if (!p || p(ev.entry.obj)) w.stream.push({ type: 'ADDED', object: copy(ev.entry), key: ev.key, size: ev.size });
      return;
    }
    if (ev.type === 'DELETED') {
      if (!p || (ev.prev && p(ev.prev.obj))) {
        w.stream.push({ type: 'DELETED', object: copy(ev.entry), prevObject: ev.prev && copy(ev.prev), key: ev.key, size: ev.size });
      }
      return;
    }
    const cur = !p || p(ev.entry.obj);
    const old = !p || (ev.prev !== undefined && p(ev.prev.obj));
    if (cur && old) {
      w.stream.push({ type: 'MODIFIED', object: copy(ev.entry), prevObject: ev.prev && copy(ev.prev), key: ev.key, size: ev.size });
    } else if (cur) {
      w.stream.push({ type: 'ADDED', object: copy(ev.entry), key: ev.key, size: ev.size });
    } else if (old && ev.prev) {
      w.stream.push({ type: 'DELETED', object: copyAt(ev.prev, ev.revision), prevObject: copy(ev.prev), key: ev.key, size: ev.size });
    }
  }

  // ---- reads ----

  /**
   * A get without a resourceVersion (a GET's usual form) returns the backend's promise as it is:
   * as an async function this added a frame, a promise, and the two microtask turns of resolving
   * one promise with another, to every such GET: 335 B of its garbage, and CPU per GET B ÷ A 0.935
   * in-process (docs/performance.md "apiserver", fourth round).
   * A bad key or resourceVersion still rejects rather than throws.
   */
  get(key: string, opts: GetOptions = {}): Promise<StoredObject> {
    try {
      validateKey(key);
      const rv = parseResourceVersion(opts.resourceVersion);
      // resourceVersion "" asks for the most recent state: a quorum read from the backend.
      if (rv === undefined || !this.isReady) return this.backend.get(key, opts);
      return this.getAt(key, rv, opts);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private async getAt(key: string, rv: number, opts: GetOptions): Promise<StoredObject> {
    if (rv > 0 && !(await this.reach(rv))) return this.backend.get(key, opts);
    const e = this.objects.get(key);
    if (!e) throw notFound(key);
    return copy(e);
  }

  async list(prefixIn: string, opts: ListOptions = {}): Promise<ListResult> {
    const rv = parseResourceVersion(opts.resourceVersion);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0)) {
      throw newBadRequest('limit must be a non-negative integer');
    }
    // Continued pages, exact snapshots and legacy paginated lists at N read the backend's history.
    const exact =
      opts.resourceVersionMatch === 'Exact' || (rv !== undefined && rv > 0 && opts.resourceVersionMatch === undefined && limit !== undefined);
    if (opts.continue || exact || !this.isReady) return this.backend.list(prefixIn, opts);
    if (rv === undefined) {
      // A consistent read: serve from memory once the cache has caught up with the backend, or
      // from the backend (kube-apiserver's cacher delegates a consistent list to etcd when etcd
      // lacks RequestWatchProgress: cacher/delegator.go shouldDelegateList).
      const current = await this.backend.currentRevision();
      if (!(await this.waitFresh(current, this.waitMs()))) return this.backend.list(prefixIn, opts);
    } else if (rv > 0 && !(await this.reach(rv))) {
      return this.backend.list(prefixIn, opts);
    }
    const prefix = normalizePrefix(prefixIn);
    const end = prefixEnd(prefix);
    const items: StoredObject[] = [];
    const p = opts.predicate;
    const readOnly = opts.readOnly === true;
    const revision = this.rev;
    const sorted = this.sorted;
    const last = lowerBound(sorted, end);
    let i = lowerBound(sorted, prefix);
    for (; i < last; i++) {
      const e = sorted[i]!;
      if (p !== undefined && !p(e.obj)) continue;
      // A read-only caller gets the cached frozen object itself: no copy of each top level and
      // metadata, and the server finds each item's kept encoding by identity instead of by a
      // built key (EncodedObjects). What it buys: a LIST of 1,000 costs 2.08–2.31 ms of server
      // CPU instead of 2.68–2.93 (profile.mjs --list 1000, two pairs, load 10–12), and serves
      // 0.53–0.75x the bare server per CPU-second instead of 0.23–0.56 (bench.mjs, three pairs;
      // docs/performance.md, "apiserver").
      items.push(readOnly ? e.obj : copy(e));
      if (limit !== undefined && items.length >= limit) break;
    }
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (limit !== undefined && items.length >= limit && i + 1 < last) {
      result.continue = encodeContinue(`${sorted[i]!.key}\u0000`, prefix, revision);
      if (!p) result.remainingItemCount = last - (i + 1);
    }
    return result;
  }

  async count(prefix: string): Promise<number> {
    if (!this.isReady) return this.backend.count(prefix);
    const p = normalizePrefix(prefix);
    return lowerBound(this.sorted, prefixEnd(p)) - lowerBound(this.sorted, p);
  }

  async watch(prefixIn: string, opts: WatchOptions = {}): Promise<Watch> {
    if (!this.isReady) await Promise.race([this.initialSync, new Promise((r) => setTimeout(r, this.freshnessTimeoutMs).unref())]);
    if (!this.isReady) return this.backend.watch(prefixIn, opts);
    const prefix = normalizePrefix(prefixIn);
    const end = prefixEnd(prefix);
    const rv = parseResourceVersion(opts.resourceVersion);
    const predicate = opts.predicate;
    const initial = opts.sendInitialEvents ?? (rv === undefined || rv === 0);
    // resourceVersion "" means "from the backend's current state": catch up with it first.
    let current: number | undefined;
    if (rv === undefined) {
      current = await this.backend.currentRevision();
      if (!(await this.reach(current))) return this.backend.watch(prefixIn, opts);
    } else if (rv > 0 && !(await this.reach(rv))) return this.backend.watch(prefixIn, opts);
    if (!initial && rv !== undefined && rv > 0 && rv < this.floor) throw tooOldResourceVersion(rv, this.floor);

    // From here on everything is synchronous: the snapshot, the catch-up and the registration
    // see the same cache state.
    const stream = new WatchStream(opts.maxQueuedEvents ?? this.maxQueuedEvents, opts.maxQueuedBytes);
    const w: CacheWatcher = { start: prefix, end, predicate, stream, last: 0, queued: 0 };
    let startRev: number;
    if (initial) {
      const sorted = this.sorted;
      for (let i = lowerBound(sorted, prefix), last = lowerBound(sorted, end); i < last; i++) {
        const e = sorted[i]!;
        if (!predicate || predicate(e.obj)) stream.pushInitial({ type: 'ADDED', object: copy(e), key: e.key });
      }
      startRev = this.rev;
      w.last = startRev;
      if (opts.sendInitialEvents === true) stream.pushInitial({ type: 'BOOKMARK', object: bookmarkObject(startRev, true) });
    } else {
      startRev = rv === undefined ? (current ?? this.rev) : rv === 0 ? this.rev : rv;
      w.last = startRev;
      this.events.forEachAfter(startRev, (ev) => this.deliver(w, ev));
    }
    this.watchers.add(w);
    const cancelBookmarks = opts.allowWatchBookmarks
      ? // Not while changes before this.rev wait for it: a bookmark never goes ahead of an event.
        scheduleBookmarks(() => {
          if (w.queued === 0) stream.push({ type: 'BOOKMARK', object: bookmarkObject(this.rev) });
        }, {
          intervalMs: opts.bookmarkIntervalMs ?? this.bookmarkIntervalMs,
          deadline: opts.deadline,
        })
      : undefined;
    const onAbort = (): void => stream.stop();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    stream.onStopped(() => {
      this.watchers.delete(w);
      cancelBookmarks?.();
      opts.signal?.removeEventListener('abort', onAbort);
    });
    return stream;
  }

  // ---- writes and the rest go to the backend ----

  create(key: string, obj: StoredObject, opts?: CreateOptions): Promise<StoredObject> {
    return this.backend.create(key, obj, opts);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: UpdateOptions): Promise<StoredObject> {
    return this.backend.guaranteedUpdate(key, tryUpdate, opts);
  }

  delete(key: string, opts?: DeleteOptions): Promise<StoredObject> {
    return this.backend.delete(key, opts);
  }

  async compact(revision: number): Promise<void> {
    await this.backend.compact(revision);
    // Watches may not start below the backend's compaction point, even where the window reaches.
    if (revision > this.floor) this.floor = revision;
    this.events.dropThrough(revision);
  }

  /** Events refused here and in the backend's storage watch. */
  watchEventDrops(): Partial<Record<'storage' | 'watch-cache', number>> {
    return { ...this.backend.watchEventDrops?.(), ...this.drops.snapshot() };
  }

  /** The window's fill and bounds, and the backend's read cache. */
  memoryStats(): StorageMemoryStats {
    return { ...this.backend.memoryStats?.(), watchCacheWindow: this.events.stats() };
  }

  currentRevision(): Promise<number> {
    return this.backend.currentRevision();
  }

  /** Watchers of the cache always see the cache's latest revision in their bookmarks. */
  async requestProgress(): Promise<void> {
    await this.backend.requestProgress?.();
  }

  confirmsProgress(): boolean {
    return this.backend.confirmsProgress?.() ?? true;
  }

  async ready(): Promise<boolean> {
    return this.isReady && (await this.backend.ready());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.isReady = false;
    this.upstream?.stop();
    this.flushQueued();
    for (const w of [...this.watchers]) w.stream.finish();
    for (const w of this.waiters) w.resolve(false);
    this.waiters = [];
    await this.backend.close();
  }
}
