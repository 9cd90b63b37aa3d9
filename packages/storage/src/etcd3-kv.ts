import { readFileSync } from 'node:fs';
import type { Etcd3, IKeyValue, IOptions, IRangeResponse, IRequestOp, IResponseHeader, IWatchRequest, IWatchResponse } from 'etcd3';
import { isStatusError, newInternalError } from '@plat/api-model';
import type { StatusError } from '@plat/api-model';
import type { Kv, KvEvent, KvReadOptions, KvRecord, KvWatch, KvWatchHandlers, RangeOptions, RangeResult, TxnResult } from './kv.js';
import { CompactedError, FutureRevisionError } from './kv.js';
import { backendUnavailable, tooOldResourceVersion } from './storage-errors.js';

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

  constructor(opts: Etcd3KvOptions) {
    if (!opts.servers.length) throw new TypeError('etcd3 storage needs at least one server URL');
    this.prefix = (opts.prefix ?? '/registry').replace(/\/+$/, '');
    this.progressIntervalMs = opts.progressIntervalMs ?? 5000;
    this.watchRetryTimeoutMs = opts.watchRetryTimeoutMs ?? 30_000;
    const requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
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
    return (this.clientPromise ??= loadEtcd3().then(({ Etcd3 }) => new Etcd3(this.clientOptions)));
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
      res = await this.cancellable(opts?.signal, (client, options) => client.kv.range({ key: this.full(key), ...(revision ? { revision } : {}) }, options));
    } catch (err) {
      if (opts?.signal?.aborted) throw err;
      return this.fail(err, revision);
    }
    return { record: res.kvs.length ? this.record(res.kvs[0]) : undefined, revision: revision || Number(res.header.revision) };
  }

  async range(start: string, end: string, opts: RangeOptions): Promise<RangeResult> {
    let res: IRangeResponse;
    try {
      res = await this.cancellable(opts.signal, (client, options) =>
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

  private async txn(key: string, expected: number, op: IRequestOp): Promise<TxnResult> {
    const k = this.full(key);
    try {
      const client = await this.client();
      const res = await client.kv.txn({
        compare: [expected === 0 ? { key: k, target: 'Create', result: 'Equal', create_revision: 0 } : { key: k, target: 'Mod', result: 'Equal', mod_revision: expected }],
        success: [op],
        failure: [{ request_range: { key: k } }],
      });
      if (res.succeeded) return { succeeded: true, revision: Number((res.header as IResponseHeader).revision) };
      const kvs = res.responses[0]?.response_range?.kvs ?? [];
      return { succeeded: false, current: kvs.length ? this.record(kvs[0]) : undefined };
    } catch (err) {
      return this.fail(err);
    }
  }

  create(key: string, value: string): Promise<TxnResult> {
    return this.txn(key, 0, { request_put: { key: this.full(key), value: buf(value) } });
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
      await client.kv.range({ key: this.full(start), range_end: this.full(end), revision: after, count_only: true });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!message.includes(futureText)) await this.fail(err, after);
    }
    const w = new EtcdWatch(this, this.full(start), this.full(end), after, handlers, {
      progressIntervalMs: this.progressIntervalMs,
      retryTimeoutMs: this.watchRetryTimeoutMs,
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
    for (const w of this.watches) w.requestProgress();
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
      const res = await client.kv.range({ key: this.full('/'), count_only: true });
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

/**
 * One etcd watch on its own gRPC stream. It reconnects after a broken stream from the last
 * revision it delivered, reports compaction as 410, and asks for progress notifications so
 * bookmarks advance while nothing changes.
 */
class EtcdWatch implements KvWatch {
  onDone: () => void = () => undefined;
  private stream: WatchStreamRpc | undefined;
  private last: number;
  private cancelled = false;
  private progressTimer: NodeJS.Timeout | undefined;
  private brokenSince = 0;

  constructor(
    private readonly kv: Etcd3Kv,
    private readonly key: Buffer,
    private readonly rangeEnd: Buffer,
    after: number,
    private readonly handlers: KvWatchHandlers,
    private readonly o: { progressIntervalMs: number; retryTimeoutMs: number },
  ) {
    this.last = after;
  }

  /** Opens the stream; resolves once etcd created the watch, rejects with CompactedError. */
  async start(): Promise<void> {
    const client = await this.kv.client();
    const stream = await client.watchClient.watch();
    if (this.cancelled) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    await new Promise<void>((resolve, reject) => {
      let created = false;
      stream.on('data', (res: IWatchResponse) => {
        if (!created) {
          created = true;
          if (res.canceled || Number(res.compact_revision) > 0) {
            stream.cancel();
            const c = Number(res.compact_revision);
            reject(c > 0 ? new CompactedError(this.last, c) : new Error(res.cancel_reason || 'etcd canceled the watch'));
            return;
          }
          this.brokenSince = 0;
          resolve();
          return;
        }
        this.onResponse(res);
      });
      stream.on('error', (err: Error) => {
        if (!created) {
          created = true;
          reject(err);
          return;
        }
        this.broken();
      });
      stream.on('end', () => {
        if (created) this.broken();
      });
      const req: IWatchRequest = {
        create_request: { key: this.key, range_end: this.rangeEnd, start_revision: this.last + 1, prev_kv: true, progress_notify: true },
      };
      stream.write(req);
    });
    if (this.o.progressIntervalMs > 0 && !this.progressTimer) {
      this.progressTimer = setInterval(() => this.requestProgress(), this.o.progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  requestProgress(): void {
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
      this.last = events[events.length - 1].revision;
      this.handlers.onEvents(events);
    } else {
      // A progress notification: every change up to the header revision has been sent.
      const rev = Number(res.header.revision);
      if (rev > this.last) this.last = rev;
      this.handlers.onProgress(rev);
    }
  }

  /** The stream broke (etcd restarted, network): reconnect from the last revision delivered. */
  private broken(): void {
    if (this.cancelled) return;
    this.stream?.cancel();
    this.stream = undefined;
    if (!this.brokenSince) this.brokenSince = Date.now();
    const retry = async (): Promise<void> => {
      if (this.cancelled) return;
      try {
        await this.start();
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
        setTimeout(() => void retry(), 250).unref();
      }
    };
    setTimeout(() => void retry(), 100).unref();
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
    try {
      this.stream?.cancel();
    } catch {
      // Already closed.
    }
    this.onDone();
  }
}
