import { readFileSync } from 'node:fs';
import type { Etcd3, IKeyValue, IOptions, IRangeResponse, IRequestOp, IResponseHeader, IWatchRequest, IWatchResponse } from 'etcd3';
import { isStatusError, newInternalError } from '@plat/api-model';
import type { StatusError } from '@plat/api-model';
import type { Kv, KvEvent, KvReadOptions, KvRecord, KvWatch, KvWatchHandlers, RangeOptions, RangeResult, TxnResult } from './kv.js';
import { CompactedError, FutureRevisionError } from './kv.js';
import { backendUnavailable, tooOldResourceVersion, writeOutcomeUnknown } from './storage-errors.js';

export interface Etcd3KvOptions {
  /** Client URLs (`--etcd-servers`), e.g. `http://127.0.0.1:2379` or `https://...`. */
  servers: string[];
  /** PEM files: CA bundle to verify etcd, client certificate and key (mutual TLS). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Prepended to every key in etcd (default `/registry`, as kube-apiserver). */
  prefix?: string;
  /**
   * A number is the dial timeout in ms; an object is merged into the `etcd3` client options
   * (for example `faultHandling` or `grpcOptions`).
   */
  dial?: unknown;
  /** Period of progress requests on each watch, which advance bookmarks without writes (default 5000 ms). */
  progressIntervalMs?: number;
  /** How long a broken watch keeps reconnecting before it reports 503 (default 30 000 ms). */
  watchRetryTimeoutMs?: number;
  /** Deadline of each unary call (default 10 000 ms). */
  requestTimeoutMs?: number;
  /**
   * Period of automatic compaction in ms (default 5 minutes, 0 disables), as kube-apiserver's
   * `--etcd-compaction-interval`: each run compacts to the revision seen at the previous run.
   */
  compactIntervalMs?: number;
}

const compactedText = 'required revision has been compacted';
/**
 * The status a cancelled read reports locally: gRPC's FAILED_PRECONDITION, not CANCELLED, which
 * etcd3 treats as a fault of the host (it retries the call, resets the host's channels and counts
 * it toward the circuit breaker). On the wire the stream is reset with CANCEL either way.
 */
const cancelledLocally = 9;
/** @grpc/grpc-js call options, as etcd3's clients take them. */
type CallOptions = NonNullable<Parameters<Etcd3['kv']['range']>[1]>;
type Interceptor = NonNullable<CallOptions['interceptors']>[number];
const futureText = 'required revision is a future revision';

let etcd3Module: Promise<typeof import('etcd3')> | undefined;

/**
 * etcd3 brings gRPC and protobufjs (about 25 packages, 150-200 ms to import): it is loaded when
 * the first etcd3 store first talks to etcd, so that memory and SQLite users never load it.
 */
function loadEtcd3(): Promise<typeof import('etcd3')> {
  return (etcd3Module ??= import('etcd3'));
}

/**
 * Failures of a write that certainly never reached etcd's log: the call was not made (the host's
 * circuit is open, the client closed) or etcd refused it before proposing it.
 */
async function writeNotSent(err: unknown): Promise<boolean> {
  if (!(err instanceof Error)) return false;
  const [{ ClientClosedError }, { isBrokenCircuitError, isIsolatedCircuitError }] = await Promise.all([loadEtcd3(), import('cockatiel')]);
  if (err instanceof ClientClosedError || isBrokenCircuitError(err) || isIsolatedCircuitError(err)) return true;
  return /etcdserver: (too many requests|request is too large)|the etcd3 storage is closed/.test(err.message);
}

/** etcd 3.4.31+ and 3.5.13+ (and any later minor) send a requested progress notification after the events it covers. */
export function progressInOrder(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

function buf(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

/**
 * etcd v3 as the Kv: native revisions, compare-and-swap transactions on mod_revision, native
 * watch with prev_kv. Keys live under `prefix` so several clusters can share one etcd.
 */
export class Etcd3Kv implements Kv {
  readonly backend = 'etcd3';
  private readonly clientOptions: IOptions;
  private clientPromise: Promise<Etcd3> | undefined;
  private closed = false;
  private readonly prefix: string;
  private readonly progressIntervalMs: number;
  private readonly watchRetryTimeoutMs: number;
  private readonly watches = new Set<EtcdWatch>();
  private knownCompacted = 0;
  private compactTimer: NodeJS.Timeout | undefined;
  private readonly requestTimeoutMs: number;
  /** Every member sends requested progress notifications in order with its events (see confirmsProgress). */
  private progressOrdered = false;
  private progressCheck: Promise<void> | undefined;

  constructor(opts: Etcd3KvOptions) {
    if (!opts.servers.length) throw new TypeError('etcd3 storage needs at least one server URL');
    this.prefix = (opts.prefix ?? '/registry').replace(/\/+$/, '');
    this.progressIntervalMs = opts.progressIntervalMs ?? 5000;
    this.watchRetryTimeoutMs = opts.watchRetryTimeoutMs ?? 30_000;
    const requestTimeoutMs = (this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000);
    const options: IOptions = {
      hosts: opts.servers,
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
      // An unpaginated list of many objects is one large range answer (kube-apiserver lifts the
      // gRPC limit the same way); etcd's own request size limit still bounds writes.
      grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
    };
    if (opts.caFile || opts.certFile || opts.keyFile) {
      if (!opts.caFile) throw new TypeError('etcd3 TLS needs caFile (--etcd-cafile)');
      options.credentials = {
        rootCertificate: readFileSync(opts.caFile),
        ...(opts.keyFile ? { privateKey: readFileSync(opts.keyFile) } : {}),
        ...(opts.certFile ? { certChain: readFileSync(opts.certFile) } : {}),
      };
    }
    if (typeof opts.dial === 'number') options.dialTimeout = opts.dial;
    else if (opts.dial && typeof opts.dial === 'object') Object.assign(options, opts.dial);
    this.clientOptions = options;
    const interval = opts.compactIntervalMs ?? 5 * 60_000;
    if (interval > 0) {
      let previous = 0;
      this.compactTimer = setInterval(() => {
        void (async () => {
          const target = previous;
          previous = await this.currentRevision().catch(() => previous);
          // Several servers may compact the same etcd: an already compacted revision is fine.
          if (target > this.knownCompacted) await this.compact(target).catch(() => undefined);
        })();
      }, interval);
      this.compactTimer.unref();
    }
  }

  /** The etcd3 client, created on first use (see loadEtcd3); a closed store has none. */
  client(): Promise<Etcd3> {
    if (this.closed) return Promise.reject(new Error('the etcd3 storage is closed'));
    return (this.clientPromise ??= Promise.all([loadEtcd3(), import('cockatiel')]).then(
      ([{ Etcd3 }, { noop }]) =>
        // etcd3's default global policy resends a call that failed with Unavailable or
        // DeadlineExceeded. For a transaction whose answer was lost that is a second apply
        // attempt: its compare fails against our own write, and a write etcd applied would be
        // answered 409. Calls go out once here; reads retry on another host themselves
        // (retryRead), writes resolve a lost answer in writeOutcome. The per-host circuit
        // breaker stays.
        new Etcd3({ ...this.clientOptions, faultHandling: { global: noop, ...this.clientOptions.faultHandling } }),
    ));
  }

  private full(key: string): Buffer {
    return buf(this.prefix + key);
  }

  private record(kv: IKeyValue): KvRecord {
    return { key: kv.key.toString('utf8').slice(this.prefix.length), value: kv.value.toString('utf8'), modRevision: Number(kv.mod_revision) };
  }

  /** Maps client failures: compaction and future revisions to typed errors, the rest to 503. */
  private async fail(err: unknown, revision?: number): Promise<never> {
    if (isStatusError(err)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (revision !== undefined && message.includes(compactedText)) {
      throw new CompactedError(revision, await this.compactRevisionAbove(revision));
    }
    if (revision !== undefined && message.includes(futureText)) {
      const current = await this.currentRevision().catch(() => 0);
      throw new FutureRevisionError(revision, current);
    }
    throw backendUnavailable('etcd3', err);
  }

  /** etcd only tells a watcher its compaction point: ask with a throwaway watch. */
  private async compactRevisionAbove(revision: number): Promise<number> {
    try {
      const client = await this.client();
      const stream = await client.watchClient.watch();
      // etcd answers "created" first and then cancels the watch with its compact_revision.
      const c = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => resolve(0), 2000);
        stream.on('data', (res: IWatchResponse) => {
          const compacted = Number(res.compact_revision);
          if (compacted > 0 || res.canceled) {
            clearTimeout(timer);
            resolve(compacted);
          }
        });
        stream.on('error', (err: Error) => {
          clearTimeout(timer);
          reject(err);
        });
        stream.write({ create_request: { key: this.full('/'), start_revision: revision } });
      });
      stream.cancel();
      if (c > this.knownCompacted) this.knownCompacted = c;
    } catch {
      // Fall back to what this process has seen.
    }
    return Math.max(this.knownCompacted, revision + 1);
  }

  /**
   * Runs an idempotent read, again on another host (up to 3 attempts) when it failed for a
   * reason etcd3 calls recoverable (a member down, a reset connection), as its default policy did.
   */
  private async retryRead<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { isRecoverableError } = await loadEtcd3();
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        if (attempt >= 3 || signal?.aborted || !(err instanceof Error) || !isRecoverableError(err)) throw err;
      }
    }
  }

  /**
   * Runs one unary call that `signal` cancels: the gRPC call in flight is cancelled (an
   * interceptor holds it; etcd3 passes call options through to @grpc/grpc-js), and the read
   * rejects with the signal's reason.
   */
  private async cancellable<T>(signal: AbortSignal | undefined, run: (client: Etcd3, options: CallOptions | undefined) => Promise<T>): Promise<T> {
    const client = await this.client();
    if (!signal) return run(client, undefined);
    signal.throwIfAborted();
    let call: { cancelWithStatus(code: number, details: string): void } | undefined;
    const onAbort = () => call?.cancelWithStatus(cancelledLocally, 'the read was cancelled by its caller');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await run(client, {
        interceptors: [
          ((options, nextCall) => {
            const started = nextCall(options);
            call = started;
            // Aborted while etcd3 was still choosing a host or fetching an auth token.
            if (signal.aborted) queueMicrotask(onAbort);
            return started;
            // grpc-js chains what an interceptor returns through its interface only; the type asks
            // for its InterceptingCall class, which would need @grpc/grpc-js loaded here.
          }) as Interceptor,
        ],
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async get(key: string, revision?: number, opts?: KvReadOptions): Promise<{ record: KvRecord | undefined; revision: number }> {
    let res: IRangeResponse;
    try {
      res = await this.retryRead(
        () => this.cancellable(opts?.signal, (client, options) => client.kv.range({ key: this.full(key), ...(revision ? { revision } : {}) }, options)),
        opts?.signal,
      );
    } catch (err) {
      if (opts?.signal?.aborted) throw err;
      return this.fail(err, revision);
    }
    return { record: res.kvs.length ? this.record(res.kvs[0]) : undefined, revision: revision || Number(res.header.revision) };
  }

  async range(start: string, end: string, opts: RangeOptions): Promise<RangeResult> {
    let res: IRangeResponse;
    try {
      res = await this.retryRead(
        () =>
          this.cancellable(opts.signal, (client, options) =>
            client.kv.range(
              {
                key: this.full(start),
                range_end: this.full(end),
                ...(opts.revision ? { revision: opts.revision } : {}),
                ...(opts.limit !== undefined ? { limit: opts.limit === 0 ? 1 : opts.limit } : {}),
                ...(opts.limit === 0 ? { count_only: true } : {}),
              },
              options,
            ),
          ),
        opts.signal,
      );
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      return this.fail(err, opts.revision);
    }
    const records = opts.limit === 0 ? [] : res.kvs.map((kv) => this.record(kv));
    const count = Number(res.count);
    return { records, count, more: count > records.length, revision: opts.revision || Number(res.header.revision) };
  }

  async count(start: string, end: string): Promise<number> {
    return (await this.range(start, end, { limit: 0 })).count;
  }

  /**
   * One compare-and-swap transaction, sent once (the client does not resend writes: see the
   * constructor). A lost answer is resolved by writeOutcome, never reported as a failed compare.
   */
  private async txn(key: string, expected: number, op: IRequestOp, ours?: string): Promise<TxnResult> {
    const k = this.full(key);
    let res;
    try {
      const client = await this.client();
      res = await client.kv.txn({
        compare: [expected === 0 ? { key: k, target: 'Create', result: 'Equal', create_revision: 0 } : { key: k, target: 'Mod', result: 'Equal', mod_revision: expected }],
        success: [op],
        failure: [{ request_range: { key: k } }],
      });
    } catch (err) {
      return this.writeOutcome(key, err, ours);
    }
    if (res.succeeded) return { succeeded: true, revision: Number((res.header as IResponseHeader).revision) };
    const kvs = res.responses[0]?.response_range?.kvs ?? [];
    return { succeeded: false, current: kvs.length ? this.record(kvs[0]) : undefined };
  }

  /**
   * A write whose answer did not arrive: etcd may have applied it, may still apply it (a proposal
   * waiting for a leader), or may never see it. When the write never left (the host's circuit is
   * open, the store is closed) or etcd refused it before proposing, it is the usual 503. Otherwise
   * a create, whose stored bytes carry a fresh uid, is read back: finding exactly our bytes means
   * it was applied, at that revision. Anything else is answered as kube-apiserver answers an etcd
   * error on a write, a 500 (storage/etcd3/store.go returns the client's error as it is, and
   * endpoints/handlers/responsewriters/status.go ErrorToAPIStatus makes a non-Status error a 500;
   * kubernetes/kubernetes#10122 shows it for "etcdserver: request timed out"), here with
   * InternalError and a message saying the outcome is unknown: never as a failed compare, which
   * would become 409 Conflict or AlreadyExists for a write that may be ours.
   */
  private async writeOutcome(key: string, err: unknown, ours: string | undefined): Promise<never | TxnResult> {
    if (isStatusError(err)) throw err;
    if (await writeNotSent(err)) throw backendUnavailable('etcd3', err);
    if (ours !== undefined) {
      const found = await this.readBack(key).catch(() => undefined);
      if (found && found.value === ours) return { succeeded: true, revision: found.modRevision };
    }
    throw writeOutcomeUnknown(err);
  }

  /** A linearizable read of one key within half the request timeout, tried on each host. */
  private async readBack(key: string): Promise<KvRecord | undefined> {
    const client = await this.client();
    const deadline = Date.now() + Math.max(1000, this.requestTimeoutMs / 2);
    let lastErr: unknown;
    for (let attempt = 0; attempt < 3 && Date.now() < deadline; attempt++) {
      try {
        const res = await client.kv.range({ key: this.full(key) }, { deadline });
        return res.kvs.length ? this.record(res.kvs[0]) : undefined;
      } catch (e) {
        lastErr = e;
      }
    }
    throw lastErr ?? new Error('no time left to read the key back');
  }

  create(key: string, value: string): Promise<TxnResult> {
    return this.txn(key, 0, { request_put: { key: this.full(key), value: buf(value) } }, value);
  }

  update(key: string, value: string, expected: number): Promise<TxnResult> {
    return this.txn(key, expected, { request_put: { key: this.full(key), value: buf(value) } });
  }

  delete(key: string, expected: number): Promise<TxnResult> {
    return this.txn(key, expected, { request_delete_range: { key: this.full(key) } });
  }

  async watch(start: string, end: string, after: number, handlers: KvWatchHandlers): Promise<KvWatch> {
    // etcd reports a compacted start revision only after it created the watch; a read at that
    // revision tells us up front (a compaction racing with this check still arrives as 410).
    try {
      const client = await this.client();
      await this.retryRead(() => client.kv.range({ key: this.full(start), range_end: this.full(end), revision: after, count_only: true }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!message.includes(futureText)) await this.fail(err, after);
    }
    const w = new EtcdWatch(this, this.full(start), this.full(end), after, handlers, {
      progressIntervalMs: this.progressIntervalMs,
      retryTimeoutMs: this.watchRetryTimeoutMs,
      createTimeoutMs: this.requestTimeoutMs,
    });
    this.watches.add(w);
    w.onDone = () => this.watches.delete(w);
    try {
      await w.start();
    } catch (err) {
      this.watches.delete(w);
      if (err instanceof CompactedError) {
        if (err.compacted > this.knownCompacted) this.knownCompacted = err.compacted;
        throw err;
      }
      return this.fail(err);
    }
    return w;
  }

  /** Turns an etcd event into a Kv event with keys relative to the prefix. */
  toEvent(e: { type: string; kv: IKeyValue; prev_kv?: IKeyValue | null }): KvEvent {
    const key = e.kv.key.toString('utf8').slice(this.prefix.length);
    const revision = Number(e.kv.mod_revision);
    const prev = e.prev_kv && e.prev_kv.key?.length ? e.prev_kv : undefined;
    if (e.type === 'Delete' || e.type === 'DELETE' || e.type === '1') {
      return { type: 'delete', key, revision, prevValue: prev?.value.toString('utf8'), prevRevision: prev ? Number(prev.mod_revision) : undefined };
    }
    return {
      type: 'put',
      key,
      value: e.kv.value.toString('utf8'),
      revision,
      prevValue: prev?.value.toString('utf8'),
      prevRevision: prev ? Number(prev.mod_revision) : undefined,
    };
  }

  requestProgress(): void {
    if (!this.confirmsProgress()) return;
    for (const w of this.watches) w.requestProgress();
  }

  /**
   * Whether a requested progress notification can be trusted: etcd before 3.4.31, and 3.5
   * before 3.5.13, may send one with a revision whose events are still queued behind it on the
   * stream (etcd-io/etcd#15220, #17507), and a watch cache taking it as caught up serves lists
   * missing those changes. As kube-apiserver decides RequestWatchProgress support
   * (staging/src/k8s.io/apiserver/pkg/storage/feature/feature_support_checker.go), it is false
   * until every member has told its version and all are fixed ones; until then no progress is
   * requested (etcd's own timed notifications, sent in order, still arrive).
   */
  confirmsProgress(): boolean {
    if (!this.closed) this.progressCheck ??= this.checkProgressOrder();
    return this.progressOrdered;
  }

  /** Asks each member its version (retrying unreachable ones with backoff, up to 15 s apart). */
  private async checkProgressOrder(): Promise<void> {
    const [{ Etcd3 }, { noop }] = await Promise.all([loadEtcd3(), import('cockatiel')]);
    const hosts = this.clientOptions.hosts;
    const pending = new Set(typeof hosts === 'string' ? [hosts] : hosts);
    for (let delay = 10; pending.size && !this.closed; delay = Math.min(delay * 2, 15_000)) {
      for (const host of [...pending]) {
        const one = new Etcd3({ ...this.clientOptions, hosts: [host], faultHandling: { global: noop } });
        try {
          const { version } = await one.maintenance.status({ deadline: Date.now() + 2000 });
          pending.delete(host);
          if (!progressInOrder(version)) return;
        } catch {
          // Unreachable for now: asked again after the delay.
        } finally {
          one.close();
        }
      }
      if (pending.size) await new Promise((r) => setTimeout(r, delay).unref());
    }
    if (!pending.size && !this.closed) this.progressOrdered = true;
  }

  async compact(revision: number): Promise<void> {
    try {
      const client = await this.client();
      await client.kv.compact({ revision, physical: true });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Compacting to an already compacted revision is not an error for us.
      if (!message.includes(compactedText)) return this.fail(err);
    }
    if (revision > this.knownCompacted) this.knownCompacted = revision;
  }

  async currentRevision(): Promise<number> {
    try {
      const client = await this.client();
      const res = await this.retryRead(() => client.kv.range({ key: this.full('/'), count_only: true }));
      return Number(res.header.revision);
    } catch (err) {
      return this.fail(err);
    }
  }

  async compactedRevision(): Promise<number> {
    return this.knownCompacted;
  }

  async ready(): Promise<boolean> {
    try {
      const client = await this.client();
      await client.kv.range({ key: this.full('/'), count_only: true }, { deadline: Date.now() + 2000 });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.compactTimer) clearInterval(this.compactTimer);
    for (const w of [...this.watches]) w.cancel();
    this.closed = true;
    (await this.clientPromise?.catch(() => undefined))?.close();
  }
}

type WatchStreamRpc = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

function cancelQuietly(stream: WatchStreamRpc): void {
  try {
    stream.cancel();
  } catch {
    // Already closed.
  }
}

/**
 * One etcd watch. It owns at most one live gRPC stream at a time: events, errors and ends of any
 * other (superseded) stream are ignored, and one reconnect loop runs after a break however many
 * ways the stream reports it (error, then end). A reconnect resumes at the last revision
 * delivered + 1, so etcd sends each change once; compaction ends the watch with 410, and progress
 * requests advance bookmarks while nothing changes.
 */
class EtcdWatch implements KvWatch {
  onDone: () => void = () => undefined;
  /** The live stream; undefined while (re)connecting or after a break. */
  private stream: WatchStreamRpc | undefined;
  /** The revision of the last event delivered (or the start): a reconnect starts after it. */
  private last: number;
  private cancelled = false;
  private reconnecting = false;
  private progressTimer: NodeJS.Timeout | undefined;
  private brokenSince = 0;

  constructor(
    private readonly kv: Etcd3Kv,
    private readonly key: Buffer,
    private readonly rangeEnd: Buffer,
    after: number,
    private readonly handlers: KvWatchHandlers,
    private readonly o: { progressIntervalMs: number; retryTimeoutMs: number; createTimeoutMs: number },
  ) {
    this.last = after;
  }

  /** Opens the stream; resolves once etcd created the watch, rejects with CompactedError. */
  async start(): Promise<void> {
    await this.open();
    if (this.o.progressIntervalMs > 0 && !this.progressTimer) {
      this.progressTimer = setInterval(() => this.requestProgress(), this.o.progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  /**
   * Opens one stream from `last + 1` and makes it the live one. Rejects when etcd refuses the
   * watch, when the stream breaks before etcd created it, or when etcd does not answer within
   * createTimeoutMs (a frozen member keeps the connection open and never answers).
   */
  private async open(): Promise<void> {
    const client = await this.kv.client();
    const stream = await client.watchClient.watch();
    if (this.cancelled) {
      cancelQuietly(stream);
      return;
    }
    if (this.stream) cancelQuietly(this.stream);
    this.stream = stream;
    await new Promise<void>((resolve, reject) => {
      let created = false;
      const fail = (err: Error): void => {
        if (created) return;
        created = true;
        clearTimeout(timer);
        if (this.stream === stream) this.stream = undefined;
        cancelQuietly(stream);
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error(`etcd did not create the watch within ${this.o.createTimeoutMs} ms`)), this.o.createTimeoutMs);
      timer.unref();
      stream.on('data', (res: IWatchResponse) => {
        if (this.stream !== stream) return;
        if (!created) {
          const c = Number(res.compact_revision);
          if (res.canceled || c > 0) {
            fail(c > 0 ? new CompactedError(this.last, c) : new Error(res.cancel_reason || 'etcd canceled the watch'));
            return;
          }
          created = true;
          clearTimeout(timer);
          this.brokenSince = 0;
          resolve();
          return;
        }
        this.onResponse(res);
      });
      const lost = (err?: Error): void => {
        if (!created) fail(err ?? new Error('the watch stream ended before etcd created the watch'));
        else this.lost(stream);
      };
      stream.on('error', (err: Error) => lost(err));
      stream.on('end', () => lost());
      const req: IWatchRequest = {
        create_request: { key: this.key, range_end: this.rangeEnd, start_revision: this.last + 1, prev_kv: true, progress_notify: true },
      };
      stream.write(req);
    });
  }

  requestProgress(): void {
    if (!this.kv.confirmsProgress()) return;
    try {
      this.stream?.write({ progress_request: {} });
    } catch {
      // A broken stream is handled by its error event.
    }
  }

  private onResponse(res: IWatchResponse): void {
    if (this.cancelled) return;
    if (res.canceled) {
      const c = Number(res.compact_revision);
      this.end(c > 0 ? tooOldResourceVersion(this.last, c) : newInternalError(new Error(res.cancel_reason || 'etcd canceled the watch')));
      return;
    }
    if (res.events?.length) {
      const events = res.events.map((e) => this.kv.toEvent(e));
      // The storage layer refuses (and counts) an event at or below what it delivered; `last`
      // never goes back, so a reconnect never asks for those revisions again.
      this.last = Math.max(this.last, events[events.length - 1].revision);
      this.handlers.onEvents(events);
    } else {
      // A progress notification: every change up to the header revision has been sent (progress
      // is requested only from members that keep that order: Etcd3Kv.confirmsProgress). It does
      // not move `last`: a reconnect from the last event is complete either way (or 410 once
      // compacted, and the caller relists), and needs no trust in the notification.
      this.handlers.onProgress(Number(res.header.revision));
    }
  }

  /** The live stream broke (member down, network): drop it and reconnect, once. */
  private lost(stream: WatchStreamRpc): void {
    if (this.cancelled || this.stream !== stream) return;
    this.stream = undefined;
    cancelQuietly(stream);
    if (!this.brokenSince) this.brokenSince = Date.now();
    if (!this.reconnecting) void this.reconnect();
  }

  /** The only reconnect loop: retries until a stream is live, etcd compacted past `last`, or retryTimeoutMs. */
  private async reconnect(): Promise<void> {
    this.reconnecting = true;
    try {
      let delay = 100;
      while (!this.cancelled) {
        await new Promise((r) => setTimeout(r, delay).unref());
        if (this.cancelled) return;
        try {
          await this.open();
          // A stream that broke between its creation and here is not live: go round again.
          if (this.stream) return;
        } catch (err) {
          if (this.cancelled) return;
          if (err instanceof CompactedError) {
            this.end(tooOldResourceVersion(err.requested, err.compacted));
            return;
          }
          if (Date.now() - this.brokenSince > this.o.retryTimeoutMs) {
            this.end(backendUnavailable('etcd3', err));
            return;
          }
        }
        delay = 250;
      }
    } finally {
      this.reconnecting = false;
    }
  }

  private end(err: StatusError): void {
    if (this.cancelled) return;
    this.cancel();
    this.handlers.onError(err);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.progressTimer) clearInterval(this.progressTimer);
    const stream = this.stream;
    this.stream = undefined;
    if (stream) cancelQuietly(stream);
    this.onDone();
  }
}
