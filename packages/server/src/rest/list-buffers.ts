/** Default bound of the idle LIST body buffers kept ({@link ListBuffers}): 32 MiB. */
export const defaultListBufferBytes = 32 * 1024 * 1024;
/** At most this many idle buffers are kept. */
const maxIdleBuffers = 32;
/** Bodies below this size come from Node's buffer pool as before: they add no GC pressure worth a buffer of their own. */
export const minPooledListBytes = 64 * 1024;
/** Capacities are rounded up to this step, so that a list that grows a little still fits the buffer it used. */
const capacityStep = 64 * 1024;

/**
 * Memory for LIST bodies, used again once the response that sent one has been written out.
 *
 * A LIST of 1,000 ClusterTrustBundles is a 1 MB body. Allocated fresh per request, each one is
 * memory outside V8's heap that V8 counts towards starting a full garbage collection, and at 32
 * connections the collector marked the whole heap every few dozen LISTs: `perf` put V8's
 * concurrent marking and sweeping at 24-34 % of the server's CPU (tools/bench/apiserver, LIST of
 * 1,000 at 32 connections, docs/performance.md "apiserver"), against 4-6 % with the buffers used
 * again; with this and the cheaper walk a LIST costs 0.48 [0.34-0.78] and 0.52 [0.35-0.67]
 * (pinned) and 0.68 [0.52-1.12] (unpinned) of the CPU it did before (ab.mjs --list 1000, 32
 * connections, per-round medians and ranges).
 *
 * A buffer goes back with {@link give} only when the response has finished: Node calls a write's
 * callback, and the response emits 'finish' after its last one, once the stream no longer holds
 * the chunk. Over TLS the chunk is encrypted into TLS records (`SSL_write` copies it) before the
 * write completes; over HTTP/2 the session completes a write once its DATA frames went to the
 * socket. A response that never finishes (the client went away) never gives its buffer back; the
 * garbage collector takes it. Every byte of the body handed out is written by the caller, and
 * only its own length is sent.
 *
 * Bounded: idle buffers are kept up to `maxBytes` together (and 32 of them); the rest are left to
 * the garbage collector (docs/operations.md, limits). Buffers in use are not counted: without the
 * pool each would have been allocated anyway.
 */
export class ListBuffers {
  /** Idle buffers, any order. */
  readonly #idle: ArrayBuffer[] = [];
  #idleBytes = 0;
  /** The buffers this pool made: only those come back (never a slice of Node's shared pool). */
  readonly #own = new WeakSet<ArrayBuffer>();

  constructor(private readonly maxBytes = defaultListBufferBytes) {}

  /** A buffer of exactly `length` bytes whose content is undefined: an idle one that fits, or a new one. */
  take(length: number): Buffer {
    if (length < minPooledListBytes) return Buffer.allocUnsafe(length);
    // The smallest idle buffer that fits, so a small list does not hold a large buffer.
    let best = -1;
    for (let i = 0; i < this.#idle.length; i++) {
      const cap = this.#idle[i]!.byteLength;
      if (cap >= length && (best < 0 || cap < this.#idle[best]!.byteLength)) best = i;
    }
    if (best >= 0) {
      const memory = this.#idle[best]!;
      this.#idle[best] = this.#idle[this.#idle.length - 1]!;
      this.#idle.pop();
      this.#idleBytes -= memory.byteLength;
      return Buffer.from(memory, 0, length);
    }
    const memory = new ArrayBuffer(Math.ceil(length / capacityStep) * capacityStep);
    this.#own.add(memory);
    return Buffer.from(memory, 0, length);
  }

  /** Takes back a buffer from {@link take} whose response has finished; anything else is ignored. */
  give(body: Buffer): void {
    const memory = body.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#own.has(memory)) return;
    // A buffer already idle (given twice) must not be handed out twice.
    if (this.#idle.includes(memory)) return;
    if (this.#idle.length >= maxIdleBuffers || this.#idleBytes + memory.byteLength > this.maxBytes) return;
    this.#idle.push(memory);
    this.#idleBytes += memory.byteLength;
  }

  /** Bytes of the idle buffers kept (for tests of the bound). */
  get idleBytes(): number {
    return this.#idleBytes;
  }
}
