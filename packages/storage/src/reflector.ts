import { isStatusError, type ApiObject } from '@plat/api-model';
import type { Storage, Watch } from './interface.js';

/** What a reflector keeps current: the whole set after each (re-)list, then every change. */
export interface ReflectorHandlers {
  replace(items: readonly ApiObject[]): void;
  /** An object added or changed; `prev` is its state before a change, when the store sends it. */
  upsert(obj: ApiObject, prev?: ApiObject): void;
  delete(obj: ApiObject): void;
}

/** Where a reflector reports re-lists and failures (a controller's or the apiserver's logger fits). */
export interface ReflectorLogger {
  /** `verbosity` as klog's V(n). */
  info(message: string, fields: Record<string, unknown>, verbosity: number): void;
  error(message: string, fields: Record<string, unknown>): void;
}

export interface ReflectorOptions {
  logger?: ReflectorLogger;
  /** First delay before a retry after a failed list or watch; doubled up to 30 s. Default 1 s. */
  retryDelayMs?: number;
}

const maxRetryDelayMs = 30_000;

/**
 * Kubernetes' reflector over a storage prefix: lists it, hands the items over, then watches from
 * the list's revision and hands over every change. When the watch ends with an error (a revision
 * compacted away: 410; a watcher that fell too far behind) it lists again; when storage fails it
 * retries with a growing delay. Storage here is the server's own (normally its watch cache), so a
 * write reaches the handlers as soon as the watch cache delivers it.
 */
export class Reflector {
  private stopped = false;
  private watch: Watch | undefined;
  private wake: (() => void) | undefined;
  private markSynced!: () => void;
  private loop: Promise<void> | undefined;
  /** Resolves once the first list was handed over. */
  readonly synced: Promise<void> = new Promise((resolve) => (this.markSynced = resolve));

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly handlers: ReflectorHandlers,
    private readonly opts: ReflectorOptions = {},
  ) {}

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /** Ends the watch; resolves when the loop has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const logger = this.opts.logger;
    const firstDelay = this.opts.retryDelayMs ?? 1000;
    let delay = firstDelay;
    while (!this.stopped) {
      try {
        const listed = await this.storage.list(this.prefix);
        if (this.stopped) return;
        this.handlers.replace(listed.items);
        this.markSynced();
        const watch = await this.storage.watch(this.prefix, { resourceVersion: listed.resourceVersion, allowWatchBookmarks: true });
        this.watch = watch;
        if (this.stopped) watch.stop();
        delay = firstDelay;
        for await (const ev of watch) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.handlers.upsert(ev.object as ApiObject, ev.prevObject);
          else if (ev.type === 'DELETED') this.handlers.delete(ev.object as ApiObject);
          else if (ev.type === 'ERROR') {
            logger?.info('Watch ended, listing again', { prefix: this.prefix, status: ev.object }, 2);
            break;
          }
        }
        watch.stop();
      } catch (err) {
        if (this.stopped) return;
        // A revision compacted away between the list and the watch: list again at once.
        if (isStatusError(err) && (err.code === 410 || isStatusError(err, 'Expired'))) continue;
        logger?.error('Cannot list or watch, retrying', { prefix: this.prefix, err: (err as Error).message, retryInMs: delay });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
        delay = Math.min(delay * 2, maxRetryDelayMs);
      }
    }
  }
}
