/** Exponential backoff with jitter, as client-go's reflector uses it. */
export interface BackoffOptions {
  /** First delay (default 800 ms, client-go's reflector). */
  initialMs?: number;
  /** Largest delay before jitter (default 30 s). */
  maxMs?: number;
}

/**
 * Delays of 800 ms, 1.6 s, 3.2 s ... up to 30 s, each stretched by a random 0–100 % (client-go's
 * `wait.Jitter(d, 1.0)`), so that many clients cut off together do not come back together.
 */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = Math.max(1, options.initialMs ?? 800);
    this.maxMs = Math.max(this.initialMs, options.maxMs ?? 30_000);
  }

  /** The delay before the next attempt; each call doubles the base. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(base * (1 + this.random()));
  }

  /** After a success, the next failure starts from the first delay again. */
  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}

/** Waits `ms`, or less when the signal aborts (then resolves false). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
