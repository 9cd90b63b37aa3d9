import type { StatusError } from '@plat/api-model';

/**
 * The small key-value MVCC surface each backend provides (memory, SQLite revision log, etcd v3).
 * MvccStorage builds the whole Storage contract on it once, so semantics (preconditions, retries,
 * pagination, watch filtering, error texts) cannot drift between backends.
 * Values are the JSON of the object without metadata.resourceVersion, which is the record's
 * modRevision (as Kubernetes does with etcd).
 */
export interface KvRecord {
  key: string;
  value: string;
  modRevision: number;
}

export interface KvEvent {
  type: 'put' | 'delete';
  key: string;
  /** The new value (put). */
  value?: string;
  /** The revision of this change. */
  revision: number;
  /** The previous value and its revision (every delete; puts that replaced a live value). */
  prevValue?: string;
  prevRevision?: number;
}

/**
 * What a read may carry: a signal that cancels it. A backend that talks to a server (etcd3)
 * cancels the call in flight when it aborts; the local ones finish in one step and need not read
 * it (reading a lazy signal may create it).
 */
export interface KvReadOptions {
  signal?: AbortSignal;
}

export interface RangeOptions extends KvReadOptions {
  /** Read at this revision (default: latest). */
  revision?: number;
  /** At most this many records (default: all). */
  limit?: number;
  /** The caller needs `count` (else a backend may report just records.length + (more ? 1 : 0)). */
  count?: boolean;
}

export interface RangeResult {
  records: KvRecord[];
  /** More live keys follow the last record. */
  more: boolean;
  /** Live keys in [start, end) at the revision read (before limit), when asked for. */
  count: number;
  /** The revision the range was read at. */
  revision: number;
}

export type TxnResult = { succeeded: true; revision: number } | { succeeded: false; current?: KvRecord };

export interface KvWatchHandlers {
  /** Changes in revision order; every change after the start revision is delivered exactly once. */
  onEvents(events: KvEvent[]): void;
  /** Every change up to `revision` has been delivered (drives bookmarks). */
  onProgress(revision: number): void;
  /** The watch broke (compaction, backend lost); no more calls follow. */
  onError(err: StatusError): void;
}

export interface KvWatch {
  cancel(): void;
}

/**
 * The revision a read is served at: the current one for none (or 0), else the one asked for,
 * refused below the compaction point or beyond the current revision.
 */
export function readRevision(requested: number | undefined, current: number, compacted: number): number {
  if (requested === undefined || requested === 0) return current;
  if (requested < compacted) throw new CompactedError(requested, compacted);
  if (requested > current) throw new FutureRevisionError(requested, current);
  return requested;
}

/** Thrown by a read or watch at a revision below the compaction point. */
export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`required revision ${requested} has been compacted (compacted revision ${compacted})`);
    this.name = 'CompactedError';
  }
}

/** Thrown by a read at a revision the store has not reached. */
export class FutureRevisionError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`required revision ${requested} is a future revision (current ${current})`);
    this.name = 'FutureRevisionError';
  }
}

export interface Kv {
  /** The backend's name for messages ("memory", "sqlite", "etcd3"). */
  readonly backend: string;
  get(key: string, revision?: number, opts?: KvReadOptions): Promise<{ record: KvRecord | undefined; revision: number }>;
  /**
   * Optional: the latest modRevision of a live key (undefined when it is missing or deleted),
   * without reading its value, and the store's current revision. Lets MvccStorage answer a get
   * of an unchanged object from its read cache without fetching and parsing the value.
   */
  modRevision?(key: string, opts?: KvReadOptions): Promise<{ modRevision: number | undefined; revision: number }>;
  /**
   * Optional, for a backend that knows it without I/O (memory; SQLite's index of the newest
   * revisions): the latest modRevision of a live key, 0 when it is missing or deleted, answered
   * synchronously. MvccStorage's get of an unchanged object then answers from its read cache
   * without awaiting the backend: no promise of the backend's and one microtask turn less a GET.
   */
  latestModRevision?(key: string): number;
  range(start: string, end: string, opts: RangeOptions): Promise<RangeResult>;
  count(start: string, end: string): Promise<number>;
  create(key: string, value: string): Promise<TxnResult>;
  /** Writes when the key's modRevision is still `expected`. */
  update(key: string, value: string, expected: number): Promise<TxnResult>;
  delete(key: string, expected: number): Promise<TxnResult>;
  /** Delivers every change in [start, end) after revision `after`. Throws CompactedError. */
  watch(start: string, end: string, after: number, handlers: KvWatchHandlers): Promise<KvWatch>;
  compact(revision: number): Promise<void>;
  /** Asks every watch for a progress notification (backends with asynchronous watches). */
  requestProgress?(): void;
  /**
   * Optional (true when missing): false while a progress notification may arrive ahead of
   * events still to be delivered, so a revision it reports does not prove a watch caught up.
   */
  confirmsProgress?(): boolean;
  currentRevision(): Promise<number>;
  /** The oldest revision still readable (revisions below it answer 410). */
  compactedRevision(): Promise<number>;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
