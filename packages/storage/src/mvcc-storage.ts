import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { StatusError, decodeStoredJson, encodeJson, isStatusError, newBadRequest, newConflict, newInternalError } from '@plat/api-model';
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
import type { Kv, KvEvent, KvRecord } from './kv.js';
import { CompactedError, FutureRevisionError } from './kv.js';
import { scheduleBookmarks } from './bookmark-schedule.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { parseResourceVersion } from './resource-version.js';
import {
  alreadyExists,
  checkPreconditions,
  continueExpired,
  listRevisionCompacted,
  notFound,
  resourceVersionSetOnCreate,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from './storage-errors.js';
import { keyInfo, normalizePrefix, prefixEnd, validateKey } from './storage-key.js';
import { WatchStream, defaultMaxQueuedEvents } from './watch-stream.js';
import { WatchEventDrops, type WatchDropLogger } from './watch-event-drops.js';

export interface MvccStorageOptions {
  /** Events one watcher may have queued before it is closed with an ERROR event. */
  maxQueuedEvents?: number;
  /** Default bookmark period for watches with allowWatchBookmarks (ms, default 60 000). */
  bookmarkIntervalMs?: number;
  /**
   * How many objects `get` keeps decoded (default 1024; 0 turns it off). A get of an object whose
   * stored revision has not changed answers the same frozen object again instead of parsing the
   * stored JSON on every read.
   */
  readCacheSize?: number;
  /** Bytes of stored JSON the read cache may hold (default 32 MiB); a larger object is not kept. */
  readCacheBytes?: number;
  /** Where a refused watch event (not newer than the last one delivered) is logged. */
  logger?: WatchDropLogger;
}

/** Freezes an object and everything in it (decoded JSON: plain objects and arrays only). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Bound of compare-and-swap retries in guaranteedUpdate and delete (a safety net, never hit in practice). */
const maxCasAttempts = 10_000;

/** RFC 3339 at second precision in UTC, as Kubernetes writes metav1.Time. */
export function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Parses a stored value and stamps the revision as metadata.resourceVersion. */
export function decodeObject(value: string, revision: number): StoredObject {
  const obj = decodeStoredJson(value) as StoredObject;
  obj.metadata = obj.metadata ?? {};
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/** The stored form of an object: its JSON without metadata.resourceVersion. */
export function encodeObject(obj: StoredObject): string {
  if (obj.metadata && 'resourceVersion' in obj.metadata) {
    const { resourceVersion: _rv, ...meta } = obj.metadata;
    return encodeJson({ ...obj, metadata: meta });
  }
  return encodeJson(obj);
}

/** A BOOKMARK's object: only a resourceVersion (and annotations); the server adds apiVersion/kind. */
export function bookmarkObject(revision: number, initialEventsEnd = false): StoredObject {
  return {
    metadata: {
      resourceVersion: String(revision),
      ...(initialEventsEnd ? { annotations: { [initialEventsEndAnnotation]: 'true' } } : {}),
    },
  };
}

/** Turns one backend change into the watch event a filtered watcher sees (etcd3 watcher's rules). */
export function transformEvent(e: KvEvent, predicate: Predicate | undefined): WatchEvent | undefined {
  if (e.type === 'delete') {
    if (e.prevValue === undefined) return undefined;
    const prev = decodeObject(e.prevValue, e.prevRevision ?? e.revision);
    if (predicate && !predicate(prev)) return undefined;
    return { type: 'DELETED', object: decodeObject(e.prevValue, e.revision), prevObject: prev, key: e.key, size: e.prevValue.length };
  }
  const value = e.value ?? '{}';
  const obj = decodeObject(value, e.revision);
  const size = value.length;
  if (e.prevValue === undefined) {
    return !predicate || predicate(obj) ? { type: 'ADDED', object: obj, key: e.key, size } : undefined;
  }
  const prev = decodeObject(e.prevValue, e.prevRevision ?? e.revision);
  if (!predicate) return { type: 'MODIFIED', object: obj, prevObject: prev, key: e.key, size };
  const cur = predicate(obj);
  const old = predicate(prev);
  if (cur && old) return { type: 'MODIFIED', object: obj, prevObject: prev, key: e.key, size };
  if (cur) return { type: 'ADDED', object: obj, key: e.key, size };
  // The object left the selection: the watcher sees it deleted, at this event's revision.
  if (old) return { type: 'DELETED', object: decodeObject(e.prevValue, e.revision), prevObject: prev, key: e.key, size: e.prevValue.length };
  return undefined;
}

function abortIfNeeded(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new StatusError({ code: 504, reason: 'Timeout', message: 'Timeout: request did not complete within the allowed duration' });
  }
}

/**
 * The Storage contract over a Kv backend: preconditions, compare-and-swap retries, snapshot
 * pagination with continue tokens, filtered watches with bookmarks and initial events.
 */
export class MvccStorage implements Storage {
  protected readonly maxQueuedEvents: number;
  protected readonly bookmarkIntervalMs: number;
  private closed = false;
  private readonly openWatches = new Set<WatchStream>();
  /** Watches with bookmarks that send one as soon as the backend reports progress. */
  private readonly progressListeners = new Set<() => void>();
  /** Objects recently answered by get, by key, with the revision they were decoded at. */
  /** Decoded objects of gets by key, bounded in count and in bytes of their stored JSON; undefined when off. */
  private readonly reads: LRUCache<string, { revision: number; object: StoredObject }> | undefined;
  /**
   * The read cache's entry that `unchangedObject` found last, while no other operation on the read
   * cache came after it: the entry is then still cached and already the most recently used, so a
   * get of the same key again takes it without lru-cache's `get` (an options object, the recency
   * move, its Map lookup: `get` 0.21 µs and its `FindOrderedHashMapEntry` 0.11 µs of a GET in
   * perf-native.mjs --callers, load 2.4; docs/performance.md "apiserver", seventh round). Every
   * other use of `reads` clears it (`readsChanged`).
   */
  private lastReadKey: string | undefined = undefined;
  private lastRead: { revision: number; object: StoredObject } | undefined = undefined;
  private readonly readCacheSize: number;
  private readonly readCacheBytes: number;
  private readonly drops: WatchEventDrops;

  constructor(
    protected readonly kv: Kv,
    opts: MvccStorageOptions = {},
  ) {
    this.maxQueuedEvents = opts.maxQueuedEvents ?? defaultMaxQueuedEvents;
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    this.readCacheSize = opts.readCacheSize ?? 1024;
    this.readCacheBytes = opts.readCacheBytes ?? 32 * 1024 * 1024;
    this.drops = new WatchEventDrops(opts.logger);
    this.reads = this.readCacheSize > 0 ? new LRUCache({ max: this.readCacheSize, maxSize: this.readCacheBytes }) : undefined;
  }

  /**
   * Runs a backend call, mapping unexpected failures to a 500 (backends map unreachability to 503).
   * The backend's promise with a rejection handler, not an async function with try/await around
   * it: every read and write passes here, and a reaction costs 35-38 ns a call where the async
   * frame cost 79-84 (promise-hops.mjs). A get's garbage went from 1,051 to 887 B, and CPU per GET
   * B ÷ A 0.983 in-process (docs/performance.md "apiserver", fourth round). What the backend throws synchronously
   * rejects the same way.
   */
  protected call<T>(fn: () => Promise<T>, read?: { readonly signal?: AbortSignal }): Promise<T> {
    if (this.closed) return Promise.reject(storageClosed());
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(backendFailure(err, read));
    }
    return pending.then(undefined, (err: unknown) => {
      throw backendFailure(err, read);
    });
  }

  async create(key: string, obj: StoredObject, opts: CreateOptions = {}): Promise<StoredObject> {
    validateKey(key);
    abortIfNeeded(opts.signal);
    const meta = obj.metadata ?? {};
    if (meta.resourceVersion) throw resourceVersionSetOnCreate();
    const { resourceVersion: _rv, ...rest } = meta;
    const value = encodeJson({ ...obj, metadata: { ...rest, uid: randomUUID(), creationTimestamp: nowRfc3339() } });
    if (opts.dryRun) {
      const { record } = await this.call(() => this.kv.get(key));
      if (record) throw alreadyExists(key);
      return decodeStoredJson(value) as StoredObject;
    }
    const res = await this.call(() => this.kv.create(key, value));
    if (!res.succeeded) throw alreadyExists(key);
    return decodeObject(value, res.revision);
  }

  get(key: string, opts: GetOptions = {}): Promise<StoredObject> {
    // An unchanged object answered without an async function: its frame and promise were 300 of
    // the 360 B a GET still allocated here once the backend was no longer awaited (690 before;
    // inprocess.mjs --profile --heap; docs/performance.md "apiserver", sixth round). What the
    // checks throw rejects, as from the async read.
    let minimum: number | undefined;
    let unchanged: StoredObject | undefined;
    try {
      validateKey(key);
      minimum = parseResourceVersion(opts.resourceVersion);
      if (this.closed) throw storageClosed();
      unchanged = this.unchangedObject(key, minimum, opts);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return unchanged !== undefined ? Promise.resolve(unchanged) : this.read(key, minimum, opts);
  }

  /**
   * The read cache's object for a get the backend answers without I/O (memory, SQLite:
   * `Kv.latestModRevision`) when the key has not changed since; undefined when the backend must
   * be read (`minimum`: the get's resourceVersion, parsed). Throws what the get answers: a
   * backend failure, NotFound for a key deleted since. Without awaiting the backend, that spares
   * its promise, an await's reaction and one microtask turn on every GET of an unchanged object
   * (perf-native.mjs --callers: no `EnqueueMicrotask` under the storage's get;
   * docs/performance.md "apiserver", sixth round).
   */
  private unchangedObject(key: string, minimum: number | undefined, opts: GetOptions): StoredObject | undefined {
    if (!this.kv.latestModRevision || minimum !== undefined) return undefined;
    let known = key === this.lastReadKey ? this.lastRead : undefined;
    if (!known) {
      known = this.reads?.get(key);
      if (!known) return undefined;
      this.lastReadKey = key;
      this.lastRead = known;
    }
    let latest: number;
    try {
      latest = this.kv.latestModRevision(key);
    } catch (err) {
      throw backendFailure(err, opts);
    }
    if (latest === known.revision) return known.object;
    if (latest === 0) {
      this.readsChanged();
      this.reads!.delete(key);
      throw notFound(key);
    }
    return undefined;
  }

  private async read(key: string, minimum: number | undefined, opts: GetOptions): Promise<StoredObject> {
    // No check of opts.signal here: a get is one backend read, and the options go to the backend
    // as they are, which reads the signal only if it can cancel a call in flight (etcd3). A
    // caller's signal may be made on first read (a server request's is), and a GET against
    // memory or SQLite should not pay for one.
    // The backend's promises are awaited here, with `call`'s failure mapping in a catch, not
    // through `call`: its two closures and the derived promise of its rejection handler, and one
    // microtask turn, on every GET: `get`'s garbage went from 920 to 691 B per GET
    // (inprocess.mjs --profile --heap, memory backend; docs/performance.md "apiserver", fifth round).
    // A backend with `latestModRevision` was asked already (unchangedObject), unless the get
    // names a resourceVersion.
    const known = this.kv.modRevision && (minimum !== undefined || !this.kv.latestModRevision) ? this.readsChanged()?.get(key) : undefined;
    if (known) {
      // A cached object: ask only whether it changed (no value read, no parse).
      let latest: { modRevision: number | undefined; revision: number };
      try {
        latest = await this.kv.modRevision!(key, opts);
      } catch (err) {
        throw backendFailure(err, opts);
      }
      if (minimum !== undefined && minimum > latest.revision) throw tooLargeResourceVersion(minimum, latest.revision);
      if (latest.modRevision === known.revision) return known.object;
      if (latest.modRevision === undefined) {
        this.readsChanged()!.delete(key);
        throw notFound(key);
      }
    }
    let read: { record: KvRecord | undefined; revision: number };
    try {
      read = await this.kv.get(key, undefined, opts);
    } catch (err) {
      throw backendFailure(err, opts);
    }
    const { record, revision } = read;
    if (minimum !== undefined && minimum > revision) throw tooLargeResourceVersion(minimum, revision);
    if (!record) throw notFound(key);
    return this.decodeRead(key, record);
  }

  /**
   * The object of a get, shared and frozen: reads of an unchanged object answer the object decoded
   * before (a key's modRevision changes with every write, delete and re-create). Callers copy
   * before changing it, as with Kubernetes' watch cache.
   */
  private decodeRead(key: string, record: KvRecord): StoredObject {
    if (!this.reads) return decodeObject(record.value, record.modRevision);
    this.readsChanged();
    const known = this.reads.get(key);
    if (known && known.revision === record.modRevision) return known.object;
    const object = deepFreeze(decodeObject(record.value, record.modRevision));
    // Least recently used first, until both bounds hold; an object larger than the byte bound is
    // not kept (and its older version is dropped).
    this.reads.set(key, { revision: record.modRevision, object }, { size: Math.max(1, record.value.length) });
    return object;
  }

  /** The read cache, for an operation after which `unchangedObject`'s last entry no longer stands. */
  private readsChanged(): LRUCache<string, { revision: number; object: StoredObject }> | undefined {
    this.lastReadKey = undefined;
    this.lastRead = undefined;
    return this.reads;
  }

  /** The read cache's fill and bounds. */
  memoryStats(): StorageMemoryStats {
    return { readCache: { objects: this.reads?.size ?? 0, bytes: this.reads?.calculatedSize ?? 0, maxObjects: this.readCacheSize, maxBytes: this.readCacheBytes } };
  }

  async list(prefixIn: string, opts: ListOptions = {}): Promise<ListResult> {
    abortIfNeeded(opts.signal);
    const prefix = normalizePrefix(prefixIn);
    const end = prefixEnd(prefix);
    if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0)) {
      throw newBadRequest('limit must be a non-negative integer');
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const rv = parseResourceVersion(opts.resourceVersion);
    let start = prefix;
    let readAt: number | undefined;
    let minimum: number | undefined;
    let fromToken = false;
    if (opts.continue) {
      if (rv !== undefined && rv !== 0) {
        throw newBadRequest('specifying resource version is not allowed when using continue');
      }
      const token = decodeContinue(opts.continue, prefix);
      start = token.startKey;
      readAt = token.revision > 0 ? token.revision : undefined;
      fromToken = true;
    } else if (opts.resourceVersionMatch === 'Exact') {
      if (!rv) throw newBadRequest(`resourceVersionMatch "Exact" is forbidden for resourceVersion "${opts.resourceVersion ?? ''}"`);
      readAt = rv;
    } else if (rv) {
      // Legacy behaviour: a paginated list at resourceVersion N without a match reads exactly N.
      if (opts.resourceVersionMatch === undefined && limit) readAt = rv;
      else minimum = rv;
    }
    return (await this.readPages(prefix, end, start, { readAt, minimum, limit, predicate: opts.predicate, fromToken, signal: opts.signal })).result;
  }

  private async readPages(
    prefix: string,
    end: string,
    startKey: string,
    o: { readAt?: number; minimum?: number; limit?: number; predicate?: Predicate; fromToken: boolean; signal?: AbortSignal },
  ): Promise<{ result: ListResult; keys: string[] }> {
    const items: StoredObject[] = [];
    const keys: string[] = [];
    let start = startKey;
    let readAt = o.readAt;
    // With a predicate, read growing batches until the page is full (as etcd3's store does).
    let batch = o.limit;
    for (let round = 0; ; round++) {
      let res;
      try {
        // Between batches too: a list that filters reads several, each one cancellable.
        if (round > 0) abortIfNeeded(o.signal);
        res = await this.call(() => this.kv.range(start, end, { revision: readAt, limit: batch, count: batch !== undefined && !o.predicate, signal: o.signal }), o);
      } catch (err) {
        if (err instanceof CompactedError) {
          if (o.fromToken) throw continueExpired(encodeContinue(start, prefix, -1));
          throw listRevisionCompacted();
        }
        if (err instanceof FutureRevisionError) throw tooLargeResourceVersion(err.requested, err.current);
        throw err;
      }
      readAt = res.revision;
      if (o.minimum !== undefined && o.minimum > res.revision) throw tooLargeResourceVersion(o.minimum, res.revision);
      const { records } = res;
      for (let i = 0; i < records.length; i++) {
        const obj = decodeObject(records[i].value, records[i].modRevision);
        if (!o.predicate || o.predicate(obj)) {
          items.push(obj);
          keys.push(records[i].key);
        }
        if (o.limit !== undefined && items.length >= o.limit) {
          const more = i < records.length - 1 || res.more;
          if (!more) return { result: { items, resourceVersion: String(res.revision) }, keys };
          const result: ListResult = {
            items,
            resourceVersion: String(res.revision),
            continue: encodeContinue(`${records[i].key}\u0000`, prefix, res.revision),
            remainingItemCount: o.predicate ? undefined : res.count - (i + 1),
          };
          return { result, keys };
        }
      }
      if (!res.more || records.length === 0) return { result: { items, resourceVersion: String(res.revision) }, keys };
      start = `${records[records.length - 1].key}\u0000`;
      if (batch !== undefined && round < 8) batch = Math.min(batch * 2, 10_000);
    }
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: UpdateOptions = {}): Promise<StoredObject> {
    validateKey(key);
    let { record } = await this.call(() => this.kv.get(key));
    for (let attempt = 0; attempt < maxCasAttempts; attempt++) {
      abortIfNeeded(opts.signal);
      if (!record && !opts.ignoreNotFound) throw notFound(key);
      const current: StoredObject = record ? decodeObject(record.value, record.modRevision) : {};
      if (record) checkPreconditions(key, opts.preconditions, current);
      const updated = await tryUpdate(record ? decodeObject(record.value, record.modRevision) : {});
      const meta = { ...(updated.metadata ?? {}) };
      delete meta.resourceVersion;
      if (record) {
        // uid and creationTimestamp are fixed at create.
        meta.uid = current.metadata?.uid;
        meta.creationTimestamp = current.metadata?.creationTimestamp;
      } else {
        meta.uid = meta.uid || randomUUID();
        meta.creationTimestamp = meta.creationTimestamp || nowRfc3339();
      }
      const value = encodeJson({ ...updated, metadata: meta });
      if (record && value === record.value) return current;
      if (opts.dryRun) {
        const out = decodeStoredJson(value) as StoredObject;
        if (record) out.metadata = { ...out.metadata, resourceVersion: String(record.modRevision) };
        return out;
      }
      const expected = record;
      const res = await this.call(() => (expected ? this.kv.update(key, value, expected.modRevision) : this.kv.create(key, value)));
      if (res.succeeded) return decodeObject(value, res.revision);
      // Someone else wrote first: re-run tryUpdate on the state the failed transaction read
      // (etcd3's store does the same, saving a read per retry).
      record = res.current;
    }
    const { groupResource, name } = keyInfo(key);
    throw newConflict(groupResource, name, new Error('too many concurrent writers; try again'));
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    validateKey(key);
    let { record } = await this.call(() => this.kv.get(key));
    for (let attempt = 0; attempt < maxCasAttempts; attempt++) {
      abortIfNeeded(opts.signal);
      if (!record) throw notFound(key);
      const current = decodeObject(record.value, record.modRevision);
      checkPreconditions(key, opts.preconditions, current);
      if (opts.validateDeletion) await opts.validateDeletion(decodeObject(record.value, record.modRevision));
      if (opts.dryRun) return current;
      const expected = record;
      const res = await this.call(() => this.kv.delete(key, expected.modRevision));
      if (res.succeeded) return decodeObject(expected.value, res.revision);
      record = res.current;
    }
    const { groupResource, name } = keyInfo(key);
    throw newConflict(groupResource, name, new Error('too many concurrent writers; try again'));
  }

  async watch(prefixIn: string, opts: WatchOptions = {}): Promise<Watch> {
    abortIfNeeded(opts.signal);
    const prefix = normalizePrefix(prefixIn);
    const end = prefixEnd(prefix);
    const rv = parseResourceVersion(opts.resourceVersion);
    const stream = new WatchStream(opts.maxQueuedEvents ?? this.maxQueuedEvents, opts.maxQueuedBytes);
    const predicate = opts.predicate;
    const initial = opts.sendInitialEvents ?? (rv === undefined || rv === 0);
    let startRev: number;
    if (initial) {
      const { result: list, keys } = await this.readPages(prefix, end, prefix, { minimum: rv || undefined, predicate, fromToken: false, signal: opts.signal });
      list.items.forEach((obj, i) => stream.pushInitial({ type: 'ADDED', object: obj, key: keys[i] }));
      startRev = Number(list.resourceVersion);
      if (opts.sendInitialEvents === true) stream.pushInitial({ type: 'BOOKMARK', object: bookmarkObject(startRev, true) });
    } else if (rv === undefined || rv === 0) {
      startRev = await this.call(() => this.kv.currentRevision());
    } else {
      startRev = rv;
    }
    let lastRev = startRev;
    let progressRev = startRev;
    let progressWanted = false;
    let kvWatch;
    try {
      kvWatch = await this.call(() =>
        this.kv.watch(prefix, end, startRev, {
          onEvents: (events) => {
            for (const e of events) {
              // A watcher that ended (stopped, or past its queue bound) needs no more decoding.
              if (stream.stopped) return;
              // Each change comes once and in order from the backend; one that does not would
              // reach the client as a duplicate, a reordering or a deleted object coming back.
              if (e.revision <= lastRev) {
                this.drops.record({ layer: 'storage', type: e.type, key: e.key, revision: e.revision, lastDelivered: lastRev });
                continue;
              }
              const ev = transformEvent(e, predicate);
              if (ev) stream.push(ev);
              lastRev = e.revision;
            }
          },
          onProgress: (revision) => {
            progressRev = revision;
            if (progressWanted) {
              progressWanted = false;
              stream.push({ type: 'BOOKMARK', object: bookmarkObject(Math.max(lastRev, progressRev)) });
            }
          },
          onError: (err) => stream.fail(err.status),
        }),
      );
    } catch (err) {
      if (err instanceof CompactedError) throw tooOldResourceVersion(startRev, err.compacted);
      throw err;
    }
    const cancel = kvWatch.cancel.bind(kvWatch);
    const cancelBookmarks = opts.allowWatchBookmarks
      ? scheduleBookmarks(() => stream.push({ type: 'BOOKMARK', object: bookmarkObject(Math.max(lastRev, progressRev)) }), {
          intervalMs: opts.bookmarkIntervalMs ?? this.bookmarkIntervalMs,
          deadline: opts.deadline,
        })
      : undefined;
    const wantProgress = (): void => {
      progressWanted = true;
    };
    if (opts.allowWatchBookmarks) this.progressListeners.add(wantProgress);
    const onAbort = (): void => stream.stop();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.openWatches.add(stream);
    stream.onStopped(() => {
      this.progressListeners.delete(wantProgress);
      cancel();
      cancelBookmarks?.();
      opts.signal?.removeEventListener('abort', onAbort);
      this.openWatches.delete(stream);
    });
    return stream;
  }

  watchEventDrops(): Partial<Record<'storage' | 'watch-cache', number>> {
    return this.drops.snapshot();
  }

  async requestProgress(): Promise<void> {
    if (!this.kv.requestProgress) return;
    for (const want of this.progressListeners) want();
    this.kv.requestProgress();
  }

  confirmsProgress(): boolean {
    return this.kv.confirmsProgress?.() ?? true;
  }

  async count(prefix: string): Promise<number> {
    const p = normalizePrefix(prefix);
    return this.call(() => this.kv.count(p, prefixEnd(p)));
  }

  async compact(revision: number): Promise<void> {
    const current = await this.call(() => this.kv.currentRevision());
    if (!Number.isInteger(revision) || revision < 0 || revision > current) {
      throw newBadRequest(`cannot compact to revision ${revision}: current revision is ${current}`);
    }
    await this.call(() => this.kv.compact(revision));
  }

  currentRevision(): Promise<number> {
    return this.call(() => this.kv.currentRevision());
  }

  /** The oldest revision still readable; reads and watches below it answer 410. */
  compactedRevision(): Promise<number> {
    return this.call(() => this.kv.compactedRevision());
  }

  async ready(): Promise<boolean> {
    if (this.closed) return false;
    try {
      return await this.kv.ready();
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    for (const w of [...this.openWatches]) w.finish();
    this.closed = true;
    this.readsChanged()?.clear();
    await this.kv.close();
  }
}

export type { KvRecord };

/** What a call to a closed store rejects with. */
function storageClosed(): Error {
  return newInternalError(new Error('storage is closed'));
}

/** What {@link MvccStorage.call} (and `get`, which awaits the backend itself) rejects with for a backend failure `err`. */
function backendFailure(err: unknown, read: { readonly signal?: AbortSignal } | undefined): unknown {
  if (isStatusError(err) || err instanceof CompactedError || err instanceof FutureRevisionError) return err;
  // A cancelled read rejects with its signal's reason, as the caller aborted it. (The signal
  // is read only here: a caller's signal may be made on first read.)
  const signal = read?.signal;
  if (signal?.aborted && err === signal.reason) return err;
  return newInternalError(err);
}
