/** What the window needs of an event: its revision and what it holds in memory. */
export interface WindowEvent {
  revision: number;
  /** Bytes the event keeps alive (its object's stored JSON). */
  size: number;
}

/** How full a window is, and its bounds (for /metrics). */
export interface EventWindowStats {
  events: number;
  bytes: number;
  maxEvents: number;
  maxBytes: number;
}

/**
 * The recent events of a watch cache, oldest first, bounded by count and by bytes: a push past
 * either bound drops the oldest events, and a dropped event holds no memory any more. Counting
 * events alone let a few updates of megabyte objects hold gigabytes.
 */
export class EventWindow<E extends WindowEvent> {
  private items: Array<E | undefined> = [];
  private head = 0;
  private bytesHeld = 0;

  constructor(
    readonly maxEvents: number,
    readonly maxBytes: number,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  get bytes(): number {
    return this.bytesHeld;
  }

  stats(): EventWindowStats {
    return { events: this.length, bytes: this.bytesHeld, maxEvents: this.maxEvents, maxBytes: this.maxBytes };
  }

  /**
   * Appends `event`, then drops the oldest events while either bound is exceeded (the new event
   * too, when it alone is larger than maxBytes). Returns the revision of the newest event
   * dropped, if any: watches must start at or above it from now on.
   */
  push(event: E): number | undefined {
    this.items.push(event);
    this.bytesHeld += event.size;
    let dropped: number | undefined;
    while (this.length > 0 && (this.length > this.maxEvents || this.bytesHeld > this.maxBytes)) dropped = this.shift().revision;
    return dropped;
  }

  /** Drops the events at or below `revision` (a compaction). */
  dropThrough(revision: number): void {
    while (this.length > 0 && this.items[this.head]!.revision <= revision) this.shift();
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.bytesHeld = 0;
  }

  /** Calls `fn` for every event newer than `revision`, oldest first. */
  forEachAfter(revision: number, fn: (event: E) => void): void {
    // Revisions ascend: find the first newer one by bisection.
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.items.length; i++) fn(this.items[i]!);
  }

  private shift(): E {
    const event = this.items[this.head]!;
    this.items[this.head] = undefined;
    this.head++;
    this.bytesHeld -= event.size;
    // Reclaim the array's front now and then (amortised O(1) per event).
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return event;
  }
}
