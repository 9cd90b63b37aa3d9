/** Where a store logs an event it refused to deliver (the apiserver's logger fits). */
export interface WatchDropLogger {
  error(message: string, fields: Record<string, unknown>): void;
}

/** The layer that refused an event: the storage watch over the backend, or the watch cache. */
export type WatchDropLayer = 'storage' | 'watch-cache';

/** What a layer knows of an event it refused. */
export interface WatchDrop {
  layer: WatchDropLayer;
  type: string;
  key?: string;
  revision: number;
  /** The revision last delivered on that stream. */
  lastDelivered: number;
}

/**
 * Counts of watch events a layer refused because their revision was not greater than the last
 * one it delivered on that stream. Each such event would reach a client as a duplicate, a
 * reordering or a deleted object coming back; a count above zero is a bug below that layer, so
 * every drop is also logged. Read at scrape time for `apiserver_watch_events_duplicate_dropped_total`.
 */
export class WatchEventDrops {
  private readonly counts = new Map<WatchDropLayer, number>();

  constructor(private readonly logger?: WatchDropLogger) {}

  record(drop: WatchDrop): void {
    this.counts.set(drop.layer, (this.counts.get(drop.layer) ?? 0) + 1);
    this.logger?.error('Dropped a watch event not newer than the last one delivered', { ...drop });
  }

  /** Drops so far by layer (layers without drops are absent). */
  snapshot(): Partial<Record<WatchDropLayer, number>> {
    return Object.fromEntries(this.counts);
  }
}
