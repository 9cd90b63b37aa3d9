/**
 * What a fault-injection run records, in the spirit of etcd's robustness tests
 * (tests/robustness: traffic records every request and response, watches record every event,
 * and the history is checked against etcd's own after the run).
 */

/** How a request ended for the client. */
export type Outcome =
  /** Acknowledged: the server answered success with this resourceVersion. */
  | { kind: 'ok'; rv: number }
  /** A definite failure (4xx Status): the write must not have been applied. */
  | { kind: 'failed'; code: number; reason: string }
  /** 5xx Status, timeout or lost connection: the write may or may not have been applied. */
  | { kind: 'unknown'; code?: number; message: string };

export interface WriteOp {
  /** Unique per request; carried in the object (annotation) so etcd's history names it. */
  id: string;
  client: string;
  replica: number;
  type: 'create' | 'update' | 'delete';
  name: string;
  /** ms since the run started. */
  start: number;
  end: number;
  /** The resourceVersion precondition (update: metadata.resourceVersion; delete: preconditions). */
  expectedRv?: number;
  /** The counter value written (create: 0; update: the value read + 1). */
  count?: number;
  outcome: Outcome;
  /** The answer was not a Status of Kubernetes' shape (it should always be one). */
  notStatus?: boolean;
}

/** A list (all pages), with resourceVersion "" (a consistent read). */
export interface ListOp {
  client: string;
  replica: number;
  start: number;
  end: number;
  rv: number;
  names: string[];
  /** Each page's resourceVersion: a continued list is one snapshot, every page at the first page's. */
  pageRvs?: number[];
}

export interface WatchEventRecord {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: number;
}

/** One watch connection. */
export interface WatchSegment {
  replica: number;
  /** The resourceVersion it was opened from. */
  from: number;
  events: WatchEventRecord[];
  bookmarks: number[];
  /** How it ended: timeout, closed connection, ERROR event (410). */
  end: string;
}

/**
 * A client's continuous view: its first segment opens at a list's resourceVersion, every later
 * one resumes from the last resourceVersion received (event or bookmark). A 410 ends the chain.
 */
export interface WatchChain {
  id: string;
  segments: WatchSegment[];
}

/** One change in etcd's own history under the resource's prefix. */
export interface EtcdEvent {
  rev: number;
  type: 'put' | 'delete';
  name: string;
  /** The op id annotation of the value written (puts). */
  op?: string;
  count?: number;
  /** A put that created the key (create_revision == mod_revision). */
  created: boolean;
  /** The key's revision before this change. */
  prevRev?: number;
}

/** What a replica lists (consistent read) once the run is over. */
export interface FinalState {
  replica: number;
  rv: number;
  objects: Array<{ name: string; rv: number }>;
}

export interface History {
  writes: WriteOp[];
  lists: ListOp[];
  watches: WatchChain[];
  etcd: EtcdEvent[];
  final: FinalState[];
  /** Longest time a request may take (the server's request timeout plus slack), ms. */
  maxAnswerMs: number;
}

export type ViolationKind =
  | 'lost-ack'
  | 'phantom-write'
  | 'applied-answered-failed'
  | 'double-apply'
  | 'lost-update'
  | 'stale-read'
  | 'list-mismatch'
  | 'slow-answer'
  | 'not-a-status'
  | 'duplicate'
  | 'reorder'
  | 'resurrection'
  | 'phantom-event'
  | 'wrong-type'
  | 'gap'
  | 'replicas-disagree';

export interface Violation {
  kind: ViolationKind;
  detail: string;
}
