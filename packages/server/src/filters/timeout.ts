// Imported, not the global: `performance` is an accessor on Node's global object (serving.ts).
import { performance } from 'node:perf_hooks';
import { nanosecondsToMilliseconds, newTimeout, parseGoDuration } from '@plat/api-model';
import type { Filter, RequestContext, RequestTimer } from '../context.js';
import { writeError } from '../response.js';

/** The `timeout` query parameter in milliseconds (Go's time.ParseDuration); undefined when it does not parse. */
export function timeoutParameterMs(text: string): number | undefined {
  const parsed = parseGoDuration(text);
  return parsed.ok ? nanosecondsToMilliseconds(parsed.nanoseconds) : undefined;
}

interface Deadline {
  at: number;
  fire: () => void;
  prev: Deadline | undefined;
  next: Deadline | undefined;
  queue: DeadlineQueue | undefined;
}

/**
 * The pending deadlines of one timeout length, earliest first (requests arrive in order, so a
 * deadline is always appended at the tail), with one timer for the head. Adding and removing are
 * O(1) and cost no timer call: this runs twice per request.
 */
class DeadlineQueue {
  head: Deadline | undefined;
  tail: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onEmpty: () => void) {}

  add(d: Deadline): void {
    d.queue = this;
    d.prev = this.tail;
    if (this.tail) this.tail.next = d;
    else this.head = d;
    this.tail = d;
    if (!this.timer) this.arm(d.at);
  }

  remove(d: Deadline): void {
    if (d.queue !== this) return;
    d.queue = undefined;
    if (d.prev) d.prev.next = d.next;
    else this.head = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = d.next = undefined;
    // The timer stays armed for the old head: when it fires it re-arms for the new head, or,
    // with nothing left, lets the queue go. (Re-arming on every removal would cost a timer call
    // per request again.)
  }

  private arm(at: number): void {
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - performance.now()));
    this.timer.unref?.();
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.at <= now) {
      const d = this.head;
      this.remove(d);
      d.fire();
    }
    // (A fired deadline may have scheduled a new one, which armed the timer already.)
    if (this.head) {
      if (!this.timer) this.arm(this.head.at);
    } else this.onEmpty();
  }
}

/** Deadlines grouped by timeout length: one timer per length that has requests in flight. */
export class DeadlineTimers {
  private readonly queues = new Map<number, DeadlineQueue>();
  // The queue of the length asked last: nearly every request has the server's --request-timeout,
  // so its queue is found by one comparison, not a Map lookup by number (part of the 0.03 µs of
  // `FindOrderedHashMapEntry` under this filter in perf-native.mjs --callers, load 3;
  // docs/performance.md "apiserver", sixth round).
  private lastMs = -1;
  private lastQueue: DeadlineQueue | undefined = undefined;

  /** Calls `fire` after `ms` unless the returned cancel function runs first. */
  schedule(ms: number, fire: () => void): () => void {
    const d: Deadline = { at: 0, fire, prev: undefined, next: undefined, queue: undefined };
    this.add(ms, d);
    return () => d.queue?.remove(d);
  }

  /** Calls `d.fire()` after `ms` unless `d.queue.remove(d)` runs first. */
  add(ms: number, d: Deadline): void {
    let queue = ms === this.lastMs ? this.lastQueue : undefined;
    if (!queue) {
      queue = this.queues.get(ms);
      if (!queue) {
        const q = new DeadlineQueue(() => {
          this.queues.delete(ms);
          if (this.lastQueue === q) this.lastQueue = undefined;
        });
        this.queues.set(ms, q);
        queue = q;
      }
      this.lastMs = ms;
      this.lastQueue = queue;
    }
    d.at = performance.now() + ms;
    queue.add(d);
  }

  /** How many timeout lengths have pending deadlines (each holds one timer). */
  get size(): number {
    return this.queues.size;
  }
}

/**
 * Kubernetes' request timeout: a non-long-running request that has not answered within the
 * server's --request-timeout (or the shorter `timeout` query parameter) gets 504 Timeout and its
 * work is cancelled through the request's AbortSignal.
 *
 * The filter returns the handler's own promise and makes no promise, reaction or bound function
 * of its own: the deadline entry (`TimedRequest`) answers the 504 itself when it fires, and the
 * request accounting (filters/request-accounting.ts), which already hears the response close and
 * the handler settle, ends it (`ctx.timer.stop()`). The filter's own promise with its two bound
 * reactions was 667 of the bytes a GET allocated, the most of any filter, and a microtask turn:
 * garbage per GET 17.56 -> 17.23 KB (inprocess.mjs --profile --heap), CPU per GET 0.967
 * [0.930-1.028] of the build before (inprocess.mjs --bare --pin, load 5.9); docs/performance.md
 * "apiserver", fourth round.
 *
 * As in Kubernetes (k8s.io/apiserver pkg/server/filters/timeout.go: the handler goes on in its
 * goroutine; pkg/server/config.go's DefaultBuildHandlerChain puts WithWaitGroup outside the
 * timeout filter, so the wait group is done at the 504), a timed-out request counts as finished once its 504 is out, whatever
 * its handler still does (the accounting sees `timer.timedOut`); the handler's late answer is
 * dropped (response.ts writes nothing after the headers). Outer filters that wait for the
 * handler's promise (the request log, tracing) see it when the handler ends.
 */
export function withRequestTimeout(requestTimeoutMs: number, timers = new DeadlineTimers()): Filter {
  return (next) => (ctx) => {
    if (ctx.longRunning || requestTimeoutMs <= 0) return next(ctx);
    let timeoutMs = requestTimeoutMs;
    const param = ctx.query.get('timeout');
    if (param) {
      const requested = timeoutParameterMs(param);
      if (requested !== undefined && requested > 0 && requested < timeoutMs) timeoutMs = requested;
    }
    const timed = new TimedRequest(ctx);
    ctx.timer = timed;
    timers.add(timeoutMs, timed);
    // A synchronous throw goes to panic recovery, whose 500 closes the response, which stops the timer.
    return next(ctx);
  };
}

/**
 * A request under its deadline: the deadline queue's entry and the request's timer in one
 * object, where a deadline record, its cancel function, the deadline's callback and their shared
 * state were four allocations a request: 155 of the 890 bytes a GET allocated in this filter
 * (inprocess.mjs --profile --heap; docs/performance.md "apiserver").
 */
class TimedRequest implements Deadline, RequestTimer {
  at = 0;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  queue: DeadlineQueue | undefined = undefined;
  timedOut = false;
  private epochDeadline: number | undefined = undefined;

  constructor(private readonly ctx: RequestContext) {}

  /**
   * The deadline in ms since the epoch, worked out from the queue's monotonic `at` when first
   * asked, not taken with `Date.now()` for every request: nothing on a GET's path reads it, and
   * the clock read was `JSDate::CurrentTimeValue` and its runtime call, 0.13-0.17 µs a GET (perf-native.mjs
   * --callers, under this filter; docs/performance.md "apiserver", sixth round).
   */
  get deadline(): number {
    return (this.epochDeadline ??= Date.now() + (this.at - performance.now()));
  }

  fire(): void {
    // Answered, and the close not yet heard (it comes a tick after the end), or the chain has
    // no accounting to stop the timer: nothing to time out.
    if (this.ctx.res.writableEnded) return;
    this.timedOut = true;
    const err = newTimeout('request did not complete within requested timeout - context deadline exceeded', 0);
    writeError(this.ctx, err);
    this.ctx.abort(err);
  }

  stop(): void {
    this.queue?.remove(this);
  }
}
