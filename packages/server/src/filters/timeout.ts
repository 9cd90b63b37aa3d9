import { nanosecondsToMilliseconds, newTimeout, parseGoDuration } from '@plat/api-model';
import type { Filter, RequestContext } from '../context.js';
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

  /** Calls `fire` after `ms` unless the returned cancel function runs first. */
  schedule(ms: number, fire: () => void): () => void {
    const d: Deadline = { at: 0, fire, prev: undefined, next: undefined, queue: undefined };
    this.add(ms, d);
    return () => d.queue?.remove(d);
  }

  /** Calls `d.fire()` after `ms` unless `d.queue.remove(d)` runs first. */
  add(ms: number, d: Deadline): void {
    let queue = this.queues.get(ms);
    if (!queue) {
      const q = new DeadlineQueue(() => this.queues.delete(ms));
      this.queues.set(ms, q);
      queue = q;
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
    ctx.deadline = Date.now() + timeoutMs;
    // One promise per request, settled by whichever comes first: the handler or the deadline.
    const timed = new TimedRequest(ctx);
    receiving = timed;
    const settled = new Promise<void>(giveResolvers);
    receiving = undefined;
    timers.add(timeoutMs, timed);
    let pending: Promise<void>;
    try {
      pending = next(ctx);
    } catch (err) {
      pending = Promise.reject(err as Error);
    }
    pending.then(timed.handled.bind(timed), timed.failed.bind(timed));
    return settled;
  };
}

/**
 * The executor of every request's promise: it hands the resolvers to the TimedRequest made just
 * before (`new Promise` runs it at once), and the handler's outcome goes to that object's bound
 * methods. A closure made per request costs V8 a `CompileLazy` at its first call: with the
 * request accounting's (request-accounting.ts), 0.45 µs of a GET's perf samples were
 * `CompileLazy` under promise reactions, 0.07-0.10 with bound methods, which call code already
 * compiled (perf-native.mjs --callers, load 2-4; docs/performance.md "apiserver").
 */
let receiving: TimedRequest | undefined;
function giveResolvers(resolve: () => void, reject: (err: unknown) => void): void {
  receiving!.resolve = resolve;
  receiving!.reject = reject;
}

/**
 * A request under its deadline: the deadline queue's entry and the settling of the filter's
 * promise in one object, where a deadline record, its cancel function, the deadline's callback
 * and their shared state were four allocations a request: 155 of the 890 bytes a GET allocated
 * in this filter (inprocess.mjs --profile --heap; docs/performance.md "apiserver").
 */
class TimedRequest implements Deadline {
  at = 0;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  queue: DeadlineQueue | undefined = undefined;
  resolve: () => void = noop;
  reject: (err: unknown) => void = noop;
  private settled = false;

  constructor(private readonly ctx: RequestContext) {}

  fire(): void {
    if (this.settled) return;
    this.settled = true;
    const err = newTimeout('request did not complete within requested timeout - context deadline exceeded', 0);
    writeError(this.ctx, err);
    this.ctx.abort(err);
    this.resolve();
  }

  handled(): void {
    if (this.settled) return;
    this.settled = true;
    this.queue?.remove(this);
    this.resolve();
  }

  // After a timeout the handler still runs to its end (its late answer is dropped); its outcome
  // is swallowed.
  failed(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.queue?.remove(this);
    this.reject(err);
  }
}

function noop(): void {}
