/**
 * The request contract: what a request is as it walks down the filter chain (RequestContext).
 * The calls made for a request get it as a parameter: authenticators and authorizers as their
 * RequestScope, admission as AdmissionRequest.scope, storage as OperationOptions.request. Per-request
 * state lives on the request itself; the module keeps no state but the bounded memo of split
 * request targets (a pure function's answers), so two servers in one process share nothing here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Context as TraceContext } from '@opentelemetry/api';
import type { RequestAudit } from '@plat/audit';
import type { Authorizer, RequestScope, UserInfo } from '@plat/auth';
import { BoundedMemo } from './bounded-memo.js';
import { emptyQuery } from './empty-query.js';
import type { RequestInfo } from './request-info.js';

/** The parts of an HTTP/1.1 or HTTP/2 (compatibility API) request the server reads. */
export interface IncomingRequest extends AsyncIterable<Buffer> {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  socket: TLSSocket | { remoteAddress?: string; remotePort?: number };
  httpVersion: string;
  on(event: 'close' | 'aborted', listener: () => void): unknown;
  destroy(err?: Error): unknown;
  /** The body's chunks; with `destroyOnReturn: false`, stopping early leaves the request open. */
  iterator(options: { destroyOnReturn: boolean }): AsyncIterable<Buffer>;
}

/** The parts of an HTTP/1.1 or HTTP/2 (compatibility API) response the server writes. */
export interface OutgoingResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  getHeader(name: string): unknown;
  removeHeader(name: string): void;
  /** `headers`: an object, or a flat list (name, value, name, value), as Node takes both. */
  writeHead(statusCode: number, headers?: Record<string, string | number | string[]> | (string | number | string[])[]): unknown;
  write(chunk: string | Buffer, cb?: (err?: Error | null) => void): boolean;
  end(chunk?: string | Buffer, cb?: () => void): unknown;
  on(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  once(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  flushHeaders?(): void;
  destroy?(err?: Error): unknown;
}

/**
 * One request as it walks down the filter chain; also the scope of every call made for it
 * (@plat/auth's RequestScope: signal, deadline, user, trace context, pinned authorizer, warnings).
 */
export interface RequestContext extends RequestScope {
  req: IncomingRequest;
  res: OutgoingResponse;
  method: string;
  /** The request URL, parsed against `https://localhost` (built on first use). */
  readonly url: URL;
  /**
   * The path as the client sent it (dot segments resolved, percent-encoding kept), for logs;
   * `info.path` is the decoded one that routing and access checks use.
   */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Set by the request info filter (handler-chain.ts), the first step that reads the request. */
  info: RequestInfo;
  /** Headers with repeated values kept apart (names lower-cased), built on first use. */
  readonly headerLists: Record<string, string[]>;
  /** The authenticated (and possibly impersonated) user, set by the authentication filter. */
  user?: UserInfo;
  /** The user before impersonation, for logs. */
  authenticatedUser?: UserInfo;
  /** Aborted when the client goes away, the request times out or the server shuts down. */
  readonly signal: AbortSignal;
  /**
   * The signal if something asked for it or the request was aborted; undefined means "not
   * aborted so far" (for a quick check that should not create one).
   */
  readonly signalIfCreated: AbortSignal | undefined;
  abort(reason: Error): void;
  /** When the request times out (ms since the epoch), from the timeout filter's timer; none for watches. */
  readonly deadline?: number;
  /** The timeout filter's deadline of the request (none for watches); see RequestTimer. */
  timer?: RequestTimer;
  /** Sent as `Warning: 299 - "..."` headers with the response. */
  warnings: string[];
  /** The trace context the request's work runs under (its current span), while it is traced. */
  traceContext?: TraceContext;
  /** The authorizer the request keeps, when the server's authorizer can be reloaded (RequestScope). */
  pinnedAuthorizer?: Authorizer;
  auditId: string;
  /** The request's audit record while the policy audits it (Metadata and up), set by the audit filter. */
  audit?: RequestAudit;
  startTime: bigint;
  /** Watches and other streams: not subject to the request timeout or in-flight limits. */
  longRunning: boolean;
}

/**
 * The options of a storage call made for a request: the request itself (@plat/storage's
 * OperationOptions.request, for wrappers such as tracing's spans) and its `signal`, made only if
 * the backend reads it. A GET creates no signal: on Node 20 every AbortSignal lives through two
 * young-generation collections and is promoted (about 2 KB of old space a request). Getters on a
 * class, not on an object literal: V8 gives every literal with its own getter closures a fresh
 * hidden class.
 */
export class RequestCallOptions {
  constructor(readonly request: RequestContext) {}

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/**
 * A request's deadline (filters/timeout.ts). It answers 504 itself when it passes; the request
 * accounting stops it once the response has closed or the handler has settled, so that the
 * timeout filter needs no promise of its own.
 */
export interface RequestTimer {
  /** When the deadline passes, in ms since the epoch. */
  readonly deadline: number;
  /** Whether the deadline passed first (the 504 is the request's answer). */
  readonly timedOut: boolean;
  /** Takes the deadline out of its queue (the request is done); harmless after it fired. */
  stop(): void;
}

export type Handler = (ctx: RequestContext) => Promise<void>;
export type Filter = (next: Handler) => Handler;

// Characters a URL path keeps as they are (RFC 3986 pchar without percent-encoding), so that
// `new URL()` would answer the same pathname; anything else takes the URL parser.
const plainRequestTarget = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:\?[^#]*)?$/;

/** A request target cut into its path and raw query; `url` when the URL parser made them. */
export interface RequestTarget {
  readonly path: string;
  readonly query: string;
  readonly url?: URL;
}

/**
 * Bounds of the memo of split request targets ({@link splitRequestTarget}; docs/operations.md,
 * limits): entries (the memo starts empty again when full) and the longest target remembered.
 */
export const requestTargetMemoEntries = 4096;
export const requestTargetMemoLength = 256;

/** Plain targets split before, by the target as the client sent it; frozen. */
const splitTargets = new BoundedMemo<RequestTarget>(requestTargetMemoEntries, requestTargetMemoLength);

/**
 * Splits a request target into path and query like `new URL(target, base)`, cheaply for plain
 * targets, and remembers a plain target's split: clients send the same few targets again and
 * again. One Map lookup of the target instead of the regular expression and two cuts (the
 * expression was 0.40 µs of a GET's perf samples under `onRequest`; perf-native.mjs, load 4),
 * and the path is then the same string object on every request, so the request info's memo
 * (request-info.ts), keyed by it, finds its hash computed: the split and the info's lookup of a
 * GET's target take 150-170 ns instead of 290-300 (microbenchmark with a fresh target string
 * per call, load 8; docs/performance.md "apiserver", fifth round). Not the global state of a server: a pure
 * function's answers, shared by every server of the process. Bounded:
 * {@link requestTargetMemoEntries} targets of at most {@link requestTargetMemoLength}
 * characters; longer ones are not looked up (hashing one would cost its length), a full memo is
 * emptied. Targets the URL parser splits (dot segments, characters outside the plain set) are
 * not remembered: their `url` is the request's own, mutable object.
 */
export function splitRequestTarget(target: string): RequestTarget {
  if (target.length > splitTargets.maxKeyLength) return splitRequestTargetUnmemoised(target);
  let split = splitTargets.get(target);
  if (split === undefined) {
    split = splitRequestTargetUnmemoised(target);
    if (split.url === undefined) splitTargets.set(target, Object.freeze(split));
  }
  return split;
}

/** {@link splitRequestTarget} without the memo: what the memo must answer for every target (fuzz-tested). */
export function splitRequestTargetUnmemoised(target: string): RequestTarget {
  if (plainRequestTarget.test(target)) {
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    // Dot segments need the URL parser's resolution.
    if (!path.includes('/.')) return { path, query: q < 0 ? '' : target.slice(q + 1) };
  }
  let url: URL;
  try {
    url = new URL(target, 'https://localhost');
  } catch {
    url = new URL('https://localhost/');
  }
  return { path: url.pathname, query: url.search.slice(1), url };
}

/**
 * The RequestContext the server builds per request. What most requests never look at is made
 * on first use: the URL object and the AbortController (whose signal costs microseconds to
 * create). The query parameters are parsed from the raw query for the request info (the `watch`
 * parameter), without the URL parser; a request without a query shares {@link emptyQuery}.
 */
export class ServerRequestContext implements RequestContext {
  readonly path: string;
  /** Set by the request info filter, the first step of the chain that reads the request. */
  info!: RequestInfo;
  longRunning = false;
  user?: UserInfo;
  authenticatedUser?: UserInfo;
  warnings: string[] = [];
  timer?: RequestTimer;
  traceContext?: TraceContext;
  pinnedAuthorizer?: Authorizer;
  audit?: RequestAudit;
  private controller?: AbortController;
  private headerListsCache?: Record<string, string[]>;
  private parsedUrl?: URL;
  private params?: URLSearchParams;
  private readonly rawQuery: string;

  constructor(
    readonly req: IncomingRequest,
    readonly res: OutgoingResponse,
    readonly method: string,
    target: RequestTarget,
    readonly auditId: string,
    readonly startTime: bigint,
  ) {
    this.path = target.path;
    this.rawQuery = target.query;
    this.parsedUrl = target.url;
  }

  get url(): URL {
    return (this.parsedUrl ??= new URL(`${this.path}${this.rawQuery ? `?${this.rawQuery}` : ''}`, 'https://localhost'));
  }

  get query(): URLSearchParams {
    // Without a query, the shared empty one (empty-query.ts): no URLSearchParams per request.
    return (this.params ??= this.parsedUrl ? this.parsedUrl.searchParams : this.rawQuery === '' ? emptyQuery : new URLSearchParams(this.rawQuery));
  }

  get headerLists(): Record<string, string[]> {
    if (this.headerListsCache) return this.headerListsCache;
    const raw = (this.req as { rawHeaders?: string[] }).rawHeaders ?? [];
    const out: Record<string, string[]> = {};
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (name.startsWith(':')) continue; // HTTP/2 pseudo-headers
      (out[name] ??= []).push(raw[i + 1]!);
    }
    return (this.headerListsCache = out);
  }

  /** The timer's, read from it when asked: nothing on a GET's path reads it (filters/timeout.ts). */
  get deadline(): number | undefined {
    return this.timer?.deadline;
  }

  get signal(): AbortSignal {
    return this.#controller().signal;
  }

  get signalIfCreated(): AbortSignal | undefined {
    return this.controller?.signal;
  }

  abort(reason: Error): void {
    this.#controller().abort(reason);
  }

  #controller(): AbortController {
    return (this.controller ??= new AbortController());
  }
}
