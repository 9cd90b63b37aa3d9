/**
 * A controller's queue of keys (client-go's util/workqueue, as the controllers use it): a key
 * added while it waits is queued once, keys are worked on one at a time in the order they came,
 * and a key whose work answers false or throws is added again `retryAfterMs` later.
 */
export class KeyWorkQueue {
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private working: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    /** Works on one key; false when it must be looked at again later. */
    private readonly work: (key: string) => Promise<boolean>,
    private readonly opts: { retryAfterMs: number; onError: (key: string, err: Error) => void },
  ) {}

  add(key: string): void {
    if (this.stopped || this.pending.has(key)) return;
    this.pending.add(key);
    this.working = this.working.then(async () => {
      this.pending.delete(key);
      try {
        if (!(await this.work(key))) this.retryLater(key);
      } catch (err) {
        this.opts.onError(key, err as Error);
        this.retryLater(key);
      }
    });
  }

  /** Resolves when every key queued, including those queued meanwhile, was worked on once. */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.working) {
      seen = this.working;
      await seen;
    }
  }

  /** Takes no more keys, drops the retries waiting, and resolves when the work under way ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.working;
  }

  private retryLater(key: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, this.opts.retryAfterMs);
    timer.unref();
    this.timers.add(timer);
  }
}
