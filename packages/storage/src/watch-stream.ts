import type { Watch, WatchEvent } from './interface.js';
import { watcherTooSlow } from './storage-errors.js';

/** Default bound of events queued for one watcher before it is closed with an ERROR event. */
export const defaultMaxQueuedEvents = 10_000;
/** Default bound of the bytes (events' `size`) queued for one watcher: 16 MiB. */
export const defaultMaxQueuedBytes = 16 * 1024 * 1024;

/**
 * One watcher's event queue, consumed as an async iterator. Producers push synchronously; a
 * consumer that falls more than `maxQueued` events or `maxQueuedBytes` behind gets an ERROR event
 * and the stream ends, so a stuck client cannot grow server memory without bound (counting
 * events alone let a stuck watcher of megabyte objects hold gigabytes).
 */
export class WatchStream implements Watch {
  private queue: Array<WatchEvent | undefined> = [];
  private head = 0;
  private waiting: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  private ended = false;
  /** Initial events still queued (not counted against the bounds). */
  private initial = 0;
  /** Bytes of the live (not initial) events queued. */
  private liveBytes = 0;
  private readonly onStop: Array<() => void> = [];

  constructor(
    private readonly maxQueued = defaultMaxQueuedEvents,
    private readonly maxQueuedBytes = defaultMaxQueuedBytes,
  ) {}

  /** Registers cleanup run once when the stream stops (consumer stop, error, or end). */
  onStopped(fn: () => void): void {
    if (this.ended) fn();
    else this.onStop.push(fn);
  }

  get stopped(): boolean {
    return this.ended;
  }

  /** Queues an event of the initial state: a bounded snapshot, so it does not count against the limit. */
  pushInitial(event: WatchEvent): void {
    if (this.ended) return;
    event.initial = true;
    this.queue.push(event);
    this.initial = this.queue.length - this.head;
  }

  push(event: WatchEvent): void {
    if (this.ended) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: event, done: false });
      return;
    }
    const live = this.queue.length - this.head - this.initial;
    const size = event.size ?? 0;
    // (One event larger than the byte bound still goes to a watcher that has nothing queued.)
    if (live >= this.maxQueued || (live > 0 && this.liveBytes + size > this.maxQueuedBytes)) {
      const queued = this.queue.length - this.head;
      const bytes = this.liveBytes;
      this.queue = [];
      this.head = 0;
      this.initial = 0;
      this.liveBytes = 0;
      this.fail(watcherTooSlow(queued, bytes).status);
      return;
    }
    this.queue.push(event);
    this.liveBytes += size;
  }

  /** Sends an ERROR event carrying `status` and ends the stream after it is read. */
  fail(status: WatchEvent['object']): void {
    if (this.ended) return;
    this.push({ type: 'ERROR', object: status });
    this.finish();
  }

  /** Ends the stream after the queued events are read. */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const fn of this.onStop.splice(0)) fn();
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  stop(): void {
    this.queue = [];
    this.head = 0;
    this.initial = 0;
    this.liveBytes = 0;
    this.finish();
  }

  /** Events queued and not yet read. */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  private next(): Promise<IteratorResult<WatchEvent>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head]!;
      // A read event holds no memory here any more.
      this.queue[this.head++] = undefined;
      if (this.initial > 0) this.initial--;
      else this.liveBytes -= value.size ?? 0;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
