import type { KvEvent, KvWatch, KvWatchHandlers } from './kv.js';

interface LocalWatcher {
  start: string;
  end: string;
  handlers: KvWatchHandlers;
}

/**
 * Fan-out of committed changes to in-process watchers, for backends whose only writer is this
 * process (memory, SQLite with an exclusive lock). Catch-up from the log and registration happen
 * in one synchronous step, so no change can slip between them.
 */
export class LocalWatchHub {
  private readonly watchers = new Set<LocalWatcher>();

  /**
   * Registers a watcher after delivering `catchUp` (the log after its start revision), one event
   * at a time as it is read. Handlers must not use the store while the catch-up is delivered.
   */
  add(start: string, end: string, handlers: KvWatchHandlers, catchUp: Iterable<KvEvent>, revision: number): KvWatch {
    const w: LocalWatcher = { start, end, handlers };
    for (const event of catchUp) handlers.onEvents([event]);
    handlers.onProgress(revision);
    this.watchers.add(w);
    return { cancel: () => this.watchers.delete(w) };
  }

  /** Delivers one committed change; every watcher learns the new revision. */
  publish(event: KvEvent): void {
    for (const w of this.watchers) {
      if (event.key >= w.start && event.key < w.end) w.handlers.onEvents([event]);
      w.handlers.onProgress(event.revision);
    }
  }

  get size(): number {
    return this.watchers.size;
  }

  /** Ends every watch (on close). */
  closeAll(err: Parameters<KvWatchHandlers['onError']>[0]): void {
    for (const w of [...this.watchers]) w.handlers.onError(err);
    this.watchers.clear();
  }
}
