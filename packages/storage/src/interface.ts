import type { ApiObject, Status } from '@plat/api-model';

/**
 * The storage contract every backend (memory, sqlite, etcd3) and the watch cache implement.
 * See docs/architecture.md, "Storage model". Keys look like `/<group>/<resource>/<name>`;
 * values are API objects stored as JSON. Every write gets a new, strictly increasing global
 * revision which becomes `metadata.resourceVersion` of the objects the store returns.
 * Errors are api-model StatusErrors (NotFound, AlreadyExists, Conflict, Gone/Expired, Timeout,
 * ServiceUnavailable when the backend cannot be reached).
 */
export type StoredObject = ApiObject;

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface OperationOptions {
  signal?: AbortSignal;
  /**
   * The request the call is made for (an API server passes its request context, @plat/auth's
   * RequestScope): wrappers around a storage read it (tracing opens its spans under the request's
   * `traceContext`); backends ignore it.
   */
  request?: { traceContext?: unknown };
}

export interface CreateOptions extends OperationOptions {
  /** Run every check (AlreadyExists) but do not write; the answer carries no new revision. */
  dryRun?: boolean;
}

export interface GetOptions extends OperationOptions {
  /** "" = most recent (quorum read); "0" = any (the cache may serve it); "N" = not older than N. */
  resourceVersion?: string;
}

export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

export type Predicate = (obj: StoredObject) => boolean;

export interface ListOptions extends OperationOptions {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Filters items; pagination counts only matching items (limit is an upper bound of items returned). */
  predicate?: Predicate;
  /**
   * The caller only reads the items (encodes them) and never changes them: a store may then hand
   * back its own deep-frozen objects instead of copies (the watch cache does; the same object
   * for the same revision, so a caller may key per-object state by identity). Without it every
   * item is the caller's to change at its top level and metadata.
   */
  readOnly?: boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision of the snapshot the list was read at. */
  resourceVersion: string;
  /** Present when more items follow; encodes the snapshot revision and the last key. */
  continue?: string;
  /** How many items (before predicate filtering, as Kubernetes counts) follow this page, when known. */
  remainingItemCount?: number;
}

/**
 * Computes the new object from the current one. It may throw a StatusError to abort (for
 * example a validation error). Returning the same object (deep-equal) makes the update a no-op:
 * no new revision is written and the current object is returned.
 */
export type TryUpdate = (current: StoredObject) => StoredObject | Promise<StoredObject>;

export interface UpdateOptions extends OperationOptions {
  preconditions?: Preconditions;
  dryRun?: boolean;
  /** When the key is missing: create from tryUpdate(undefined-like empty) if true, else 404. */
  ignoreNotFound?: boolean;
}

export interface DeleteOptions extends OperationOptions {
  preconditions?: Preconditions;
  dryRun?: boolean;
  /** Checked against the current object right before the delete; may throw a StatusError. */
  validateDeletion?: (current: StoredObject) => void | Promise<void>;
}

export interface WatchOptions extends OperationOptions {
  /**
   * "" or undefined: start at the current revision; with sendInitialEvents (default true here, as
   * Kubernetes does for a watch without resourceVersion) first send the current objects as ADDED.
   * "0": same, and a cache may serve it. "N": deliver every change after revision N (410 Expired
   * if N is older than the compaction point).
   */
  resourceVersion?: string;
  /** Send the current state as ADDED events, then a BOOKMARK annotated initial-events-end. */
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  predicate?: Predicate;
  /** Bookmark period in ms when allowWatchBookmarks is set (default about 60 s, tests shorten it). */
  bookmarkIntervalMs?: number;
  /**
   * When the caller will end the watch (Date.now() ms; the server's timeoutSeconds). With
   * allowWatchBookmarks the last BOOKMARK goes out 2 s before it, as kube-apiserver's cacher does.
   */
  deadline?: number;
  /**
   * Live events this watcher may have queued before it is closed with an ERROR event (default:
   * the store's setting, 10 000). The initial events do not count against it.
   */
  maxQueuedEvents?: number;
  /** Bytes (events' `size`) of live events this watcher may have queued (default 16 MiB). */
  maxQueuedBytes?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  /** The object (for DELETED: its last state, with resourceVersion = the delete revision). ERROR carries a Status. */
  object: StoredObject | Status;
  /** The previous state for MODIFIED and DELETED, so filtered watchers can tell an object leaving the selection. */
  prevObject?: StoredObject;
  /**
   * The storage key of the object (ADDED/MODIFIED/DELETED). Added to the lead's contract so a
   * watch cache can be fed through the public Storage interface alone; servers may ignore it.
   */
  key?: string;
  /**
   * Bytes of the object's stored form (its JSON), when the store knows them (every store built on
   * MvccStorage does): what keeping the event costs, for a watch cache's byte bound.
   */
  size?: number;
  /**
   * Set on the events of a watch's initial state (sendInitialEvents, or a watch from "0"): they
   * come in key order, so their resourceVersions do not increase; every later event's do.
   */
  initial?: true;
}

/** What a store keeps in memory, for /metrics: each part present when the store has it. */
export interface StorageMemoryStats {
  /** A watch cache's window of recent events (for watches resuming from a revision). */
  watchCacheWindow?: { events: number; bytes: number; maxEvents: number; maxBytes: number };
  /** Decoded objects a store keeps for repeated gets. */
  readCache?: { objects: number; bytes: number; maxObjects: number; maxBytes: number };
}

/** The annotation on the BOOKMARK that ends the initial events of a sendInitialEvents watch. */
export const initialEventsEndAnnotation = 'plat.io/initial-events-end';

export interface Watch extends AsyncIterable<WatchEvent> {
  /** Stops the watch; the iterator ends. Idempotent. */
  stop(): void;
}

export interface Storage {
  create(key: string, obj: StoredObject, opts?: CreateOptions): Promise<StoredObject>;
  /** The object at key; it may be shared with other readers and frozen: copy it before changing it. */
  get(key: string, opts?: GetOptions): Promise<StoredObject>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: UpdateOptions): Promise<StoredObject>;
  delete(key: string, opts?: DeleteOptions): Promise<StoredObject>;
  watch(prefix: string, opts?: WatchOptions): Promise<Watch>;
  count(prefix: string): Promise<number>;
  /** Forgets revisions below `revision`; watches and lists from before it then answer 410. */
  compact(revision: number): Promise<void>;
  /** The latest revision written. */
  currentRevision(): Promise<number>;
  /**
   * Asks the backend to confirm soon, with a BOOKMARK on every watch that allows bookmarks, the
   * revision it has delivered up to (etcd's RequestProgress). Optional: the watch cache uses it to
   * catch up with revisions written outside its range; backends that deliver progress
   * synchronously do not need it.
   */
  requestProgress?(): Promise<void>;
  /**
   * Optional (true when missing): false while the backend cannot prove that its watches caught
   * up with a revision unless an event at or past it arrived (etcd before 3.4.31 and 3.5.13).
   * The watch cache then answers a consistent read it has not caught up with from the backend.
   */
  confirmsProgress?(): boolean;
  /** Reports whether the backend is reachable (for /readyz). */
  ready(): Promise<boolean>;
  /** Optional: what the store keeps in memory and its bounds (for /metrics). */
  memoryStats?(): StorageMemoryStats;
  /**
   * Optional: watch events refused by layer because they were not newer than the last event
   * delivered on their stream (for /metrics; anything above zero is a bug below that layer).
   */
  watchEventDrops?(): Partial<Record<'storage' | 'watch-cache', number>>;
  close(): Promise<void>;
}
