import { newServiceUnavailable } from '@plat/api-model';
import type { Kv, KvEvent, KvRecord, KvWatch, KvWatchHandlers, RangeOptions, RangeResult, TxnResult } from './kv.js';
import { CompactedError, readRevision } from './kv.js';
import { LocalWatchHub } from './local-watch-hub.js';

interface Version {
  revision: number;
  /** undefined marks a delete (tombstone). */
  value: string | undefined;
}

/** Index of the first element of a sorted array that is >= x. */
function lowerBound<T>(arr: readonly T[], x: number | string, at: (t: T) => number | string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(arr[mid]) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An in-memory multi-version key-value store with etcd's revision rules: revision 1 is the empty
 * store, every write increments it, history below the compaction point is dropped.
 */
export class MemoryKv implements Kv {
  readonly backend = 'memory';
  private revision = 1;
  private compacted = 0;
  private readonly versions = new Map<string, Version[]>();
  private readonly keys: string[] = [];
  private log: KvEvent[] = [];
  private readonly hub = new LocalWatchHub();
  private readonly timer: NodeJS.Timeout | undefined;

  /**
   * `compactIntervalMs` (default 5 minutes, 0 disables): each run compacts to the revision that
   * was current at the previous run, so history (and memory) stays bounded in a long-running server.
   */
  constructor(opts: { compactIntervalMs?: number } = {}) {
    const interval = opts.compactIntervalMs ?? 5 * 60_000;
    if (interval > 0) {
      let previous = this.revision;
      this.timer = setInterval(() => {
        const target = previous;
        previous = this.revision;
        void this.compact(target);
      }, interval);
      this.timer.unref();
    }
  }

  private versionAt(key: string, revision: number): Version | undefined {
    const vs = this.versions.get(key);
    if (!vs) return undefined;
    const i = lowerBound(vs, revision + 1, (v) => v.revision) - 1;
    return i >= 0 ? vs[i] : undefined;
  }

  latestModRevision(key: string): number {
    const v = this.latest(key);
    return v?.value !== undefined ? v.revision : 0;
  }

  async get(key: string, revision?: number): Promise<{ record: KvRecord | undefined; revision: number }> {
    const at = readRevision(revision, this.revision, this.compacted);
    const v = this.versionAt(key, at);
    const record = v?.value !== undefined ? { key, value: v.value, modRevision: v.revision } : undefined;
    return { record, revision: at };
  }

  async range(start: string, end: string, opts: RangeOptions): Promise<RangeResult> {
    const at = readRevision(opts.revision, this.revision, this.compacted);
    const records: KvRecord[] = [];
    let count = 0;
    for (let i = lowerBound(this.keys, start, (k) => k); i < this.keys.length && this.keys[i] < end; i++) {
      const key = this.keys[i];
      const v = this.versionAt(key, at);
      if (v?.value === undefined) continue;
      count++;
      if (opts.limit === undefined || records.length < opts.limit) {
        records.push({ key, value: v.value, modRevision: v.revision });
      }
    }
    return { records, count, more: count > records.length, revision: at };
  }

  async count(start: string, end: string): Promise<number> {
    return (await this.range(start, end, { limit: 0 })).count;
  }

  private latest(key: string): Version | undefined {
    const vs = this.versions.get(key);
    return vs?.[vs.length - 1];
  }

  private write(key: string, value: string | undefined, prev: Version | undefined): number {
    const revision = ++this.revision;
    let vs = this.versions.get(key);
    if (!vs) {
      vs = [];
      this.versions.set(key, vs);
      this.keys.splice(lowerBound(this.keys, key, (k) => k), 0, key);
    }
    vs.push({ revision, value });
    const live = prev?.value !== undefined ? prev : undefined;
    const event: KvEvent = {
      type: value === undefined ? 'delete' : 'put',
      key,
      value,
      revision,
      prevValue: live?.value,
      prevRevision: live?.revision,
    };
    this.log.push(event);
    this.hub.publish(event);
    return revision;
  }

  private current(key: string): KvRecord | undefined {
    const v = this.latest(key);
    return v?.value !== undefined ? { key, value: v.value, modRevision: v.revision } : undefined;
  }

  async create(key: string, value: string): Promise<TxnResult> {
    const prev = this.latest(key);
    if (prev?.value !== undefined) return { succeeded: false, current: this.current(key) };
    return { succeeded: true, revision: this.write(key, value, prev) };
  }

  async update(key: string, value: string, expected: number): Promise<TxnResult> {
    const prev = this.latest(key);
    if (prev?.value === undefined || prev.revision !== expected) return { succeeded: false, current: this.current(key) };
    return { succeeded: true, revision: this.write(key, value, prev) };
  }

  async delete(key: string, expected: number): Promise<TxnResult> {
    const prev = this.latest(key);
    if (prev?.value === undefined || prev.revision !== expected) return { succeeded: false, current: this.current(key) };
    return { succeeded: true, revision: this.write(key, undefined, prev) };
  }

  async watch(start: string, end: string, after: number, handlers: KvWatchHandlers): Promise<KvWatch> {
    if (after < this.compacted) throw new CompactedError(after, this.compacted);
    const from = lowerBound(this.log, after + 1, (e) => e.revision);
    const catchUp: KvEvent[] = [];
    for (let i = from; i < this.log.length; i++) {
      const e = this.log[i];
      if (e.key >= start && e.key < end) catchUp.push(e);
    }
    return this.hub.add(start, end, handlers, catchUp, this.revision);
  }

  async compact(revision: number): Promise<void> {
    if (revision <= this.compacted) return;
    const at = Math.min(revision, this.revision);
    for (const [key, vs] of this.versions) {
      // Keep the newest version at or below `at` (the state at `at`) unless it is a tombstone.
      const i = lowerBound(vs, at + 1, (v) => v.revision) - 1;
      if (i < 0) continue;
      const keepFrom = vs[i].value === undefined ? i + 1 : i;
      if (keepFrom > 0) vs.splice(0, keepFrom);
      if (vs.length === 0) {
        this.versions.delete(key);
        this.keys.splice(lowerBound(this.keys, key, (k) => k), 1);
      }
    }
    this.log = this.log.slice(lowerBound(this.log, at + 1, (e) => e.revision));
    this.compacted = at;
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.hub.closeAll(newServiceUnavailable('storage is closed'));
  }
}
