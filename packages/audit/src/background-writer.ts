/**
 * Lines written in the background (the log backend in batch mode, as kube-apiserver's buffered
 * backend writes from a goroutine of its own): each line is encoded straight into a slab of memory
 * that is written later and then reused, and writes are paced, one at a time.
 *
 * What this buys, for a GET audited at Metadata on the benchmark machine (tools/bench/audit): a
 * write per event-loop turn cost about 40 µs of the main thread's CPU a request (113 against 73 µs
 * with auditing off: each write a hand-over to libuv's pool and back, and a stat of the path),
 * where paced writes cost a few a second. Joining the waiting line strings and making a Buffer of
 * them was then about a third of what the filter and the backend cost in one process
 * (tools/bench/audit/filter.mjs), most of it collecting those large strings and buffers; reused
 * slabs allocate nothing per line.
 */
import { write as fsWrite, writev as fsWritev } from 'node:fs';

/** A background write starts at most this often (milliseconds)… */
export const backgroundWriteIntervalMs = 25;
/** …unless this many bytes of lines are waiting. */
export const backgroundWriteBytes = 1024 * 1024;
/** Lines are gathered in slabs of this size (a longer line gets a buffer of its own). */
export const slabBytes = 256 * 1024;
/**
 * Written slabs kept for the next lines, at most (1 MiB, a write's worth: backgroundWriteBytes).
 * With one kept, nearly every slab was new memory (459 of the 473 slabs of 170,000 events in
 * tools/bench/audit/filter.mjs; 75 on the server in one process, 2 with four kept): each
 * allocation a fresh mapping whose pages fault in as the lines are written, and an unmapping when
 * collected. The real server's CPU a GET with auditing on 0.991 and 0.980 of what it was with one
 * (−0.4 and −1.3 µs, tools/bench/audit/inprocess.mjs --audit-both, n=10, load 3–6); the filter with
 * the backend 0.90 [0.64–1.41] (filter-ab.mjs, n=9, load 4.9).
 */
export const maxSpareSlabs = backgroundWriteBytes / slabBytes;
/**
 * Room a slab must have left for appendInto() to encode a line into it (else a new slab is taken,
 * leaving at most this much of the old one unused); a longer line may still fit.
 */
export const directLineBytes = 8 * 1024;

/** Encodes `value` into `buf` from `at`, up to `end`; returns where it ends, or -1 when it did not. */
export type EncodeInto<T> = (value: T, buf: Uint8Array, at: number, end: number) => number;

interface Chunk {
  data: Buffer;
  /** Events in it, for the error count when its write fails. */
  count: number;
}

export interface BackgroundWriterOptions {
  /** Writes the chunks, in order, whole; rejects when they are not all written. */
  write(chunks: readonly Buffer[]): Promise<void>;
  /** Bytes one write takes at most (at least one chunk: a line is never split). */
  maxWriteBytes: number;
  /** Bytes waiting before new lines are refused. */
  maxQueuedBytes: number;
  /** `count` events were lost: their write failed. */
  onFailure(count: number, err: Error): void;
}

/** Writes all of `chunks` to `fd` at its current position, going on after short writes. */
export function writeChunks(fd: number, chunks: readonly Buffer[], onWritten: (err: Error | null, written: number) => void): void {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const rest = (data: Buffer, written: number) => {
    if (written >= total) return onWritten(null, written);
    fsWrite(fd, data, written, total - written, null, (err, n) => (err ? onWritten(err, written) : rest(data, written + n)));
  };
  fsWritev(fd, chunks, null, (err, n) => {
    if (err) return onWritten(err, 0);
    // A short write (rare: a full disk, a signal) goes on from the byte it stopped at.
    if (n < total) rest(Buffer.concat(chunks), n);
    else onWritten(null, n);
  });
}

export class BackgroundWriter {
  private readonly sealed: Chunk[] = [];
  private slab: Buffer | undefined;
  private used = 0;
  private slabCount = 0;
  private readonly spares: Buffer[] = [];
  private queuedBytes = 0;
  private writing: Promise<void> | undefined;
  private lastWriteStart = -Infinity;
  private paceTimer: NodeJS.Timeout | undefined;
  private draining = false;

  constructor(private readonly options: BackgroundWriterOptions) {}

  /** Queues `text` and a newline as the line(s) of `count` events; false (nothing queued) when the queue is full. */
  append(text: string, count: number): boolean {
    if (this.queuedBytes + text.length + 1 > this.options.maxQueuedBytes) return false;
    // At most 3 bytes of UTF-8 per UTF-16 unit: the exact size is needed only when that may not fit.
    if (!this.slab || text.length * 3 + 1 > this.slab.length - this.used) {
      const need = Buffer.byteLength(text) + 1;
      if (!this.slab || need > this.slab.length - this.used) {
        this.seal();
        this.slab = need <= slabBytes ? this.takeSlab() : Buffer.allocUnsafeSlow(need);
      }
    }
    const start = this.used;
    this.used += this.slab.write(text, this.used);
    this.slab[this.used++] = 0x0a;
    this.slabCount += count;
    this.queuedBytes += this.used - start;
    this.pump();
    return true;
  }

  /**
   * Queues the line `encodeInto` writes for `value` straight into the slab, and a newline, as the
   * line of `count` events: no string of it is made. Returns undefined (nothing queued) when the
   * encoder declined or the queue may be too full: append() then takes the line as a string.
   */
  appendInto<T>(value: T, encodeInto: EncodeInto<T>, count: number): boolean | undefined {
    if (this.queuedBytes + directLineBytes > this.options.maxQueuedBytes) return undefined;
    if (!this.slab || this.slab.length - this.used < directLineBytes) {
      this.seal();
      this.slab = this.takeSlab();
    }
    const start = this.used;
    const end = encodeInto(value, this.slab, start, this.slab.length - 1);
    if (end < 0) return undefined;
    this.slab[end] = 0x0a;
    this.used = end + 1;
    this.slabCount += count;
    this.queuedBytes += this.used - start;
    this.pump();
    return true;
  }

  /** Writes everything queued, without pacing, and waits for it. */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.paceTimer) {
      clearTimeout(this.paceTimer);
      this.paceTimer = undefined;
    }
    this.pump();
    while (this.writing) await this.writing;
  }

  private takeSlab(): Buffer {
    return this.spares.pop() ?? Buffer.allocUnsafeSlow(slabBytes);
  }

  private seal(): void {
    if (this.slab && this.used > 0) {
      this.sealed.push({ data: this.slab.subarray(0, this.used), count: this.slabCount });
      this.slab = undefined;
    }
    this.used = 0;
    this.slabCount = 0;
  }

  private pump(): void {
    if (this.writing || this.paceTimer || (this.sealed.length === 0 && this.used === 0)) return;
    const wait = this.lastWriteStart + backgroundWriteIntervalMs - performance.now();
    if (wait > 0 && !this.draining && this.queuedBytes < backgroundWriteBytes) {
      this.paceTimer = setTimeout(() => {
        this.paceTimer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.lastWriteStart = performance.now();
    this.seal();
    const chunks: Chunk[] = [];
    let bytes = 0;
    while (this.sealed.length > 0 && (chunks.length === 0 || bytes + this.sealed[0]!.data.length <= this.options.maxWriteBytes)) {
      const chunk = this.sealed.shift()!;
      chunks.push(chunk);
      bytes += chunk.data.length;
    }
    let started: Promise<void>;
    try {
      started = this.options.write(chunks.map((c) => c.data));
    } catch (err) {
      started = Promise.reject(err);
    }
    this.writing = started
      .then(
        () => {
          // Written: slabs of the usual size are kept for the next lines.
          for (const c of chunks) {
            if (this.spares.length >= maxSpareSlabs) break;
            if (c.data.buffer.byteLength === slabBytes) this.spares.push(Buffer.from(c.data.buffer, c.data.byteOffset, slabBytes));
          }
        },
        (err: Error) =>
          this.options.onFailure(
            chunks.reduce((n, c) => n + c.count, 0),
            err,
          ),
      )
      .finally(() => {
        this.queuedBytes -= bytes;
        this.writing = undefined;
        this.pump();
      });
  }
}
