import type { EtcdEvent, History, ListOp, Violation, WatchChain, WriteOp } from './history.js';

/** Bound of the violations reported per kind, so a broken run prints a readable report. */
const maxPerKind = 20;

/** The watch event type a change of etcd's history is delivered as (no selectors). */
function watchType(e: EtcdEvent): 'ADDED' | 'MODIFIED' | 'DELETED' {
  if (e.type === 'delete') return 'DELETED';
  return e.created ? 'ADDED' : 'MODIFIED';
}

/** The live objects (name → revision) after every change up to `rev`. */
function stateAt(etcd: readonly EtcdEvent[], rev: number): Map<string, number> {
  const state = new Map<string, number>();
  for (const e of etcd) {
    if (e.rev > rev) break;
    if (e.type === 'put') state.set(e.name, e.rev);
    else state.delete(e.name);
  }
  return state;
}

/**
 * Writes against etcd's history: every acknowledged write is there at its revision, every change
 * there was requested by a write that was not answered as a definite failure, and none twice.
 */
function checkWrites(h: History, out: Violation[]): void {
  const byId = new Map(h.writes.map((w) => [w.id, w]));
  const putsByOp = new Map<string, EtcdEvent[]>();
  const etcdAt = new Map<number, EtcdEvent>();
  for (const e of h.etcd) {
    etcdAt.set(e.rev, e);
    if (e.type === 'put' && e.op) putsByOp.set(e.op, [...(putsByOp.get(e.op) ?? []), e]);
  }
  for (const e of h.etcd) {
    if (e.type === 'put') {
      const w = e.op ? byId.get(e.op) : undefined;
      if (!w || w.name !== e.name || (w.type === 'create') !== e.created) {
        out.push({ kind: 'phantom-write', detail: `etcd revision ${e.rev}: put of ${e.name} by ${e.op ?? 'no op'} matches no ${e.created ? 'create' : 'update'} request` });
      } else if (w.outcome.kind === 'failed') {
        out.push({ kind: 'applied-answered-failed', detail: `${w.type} ${w.id} of ${w.name} was answered ${w.outcome.code} ${w.outcome.reason}, yet etcd applied it at revision ${e.rev}` });
      }
      continue;
    }
    const deletes = h.writes.filter((w) => w.type === 'delete' && w.name === e.name && w.expectedRv === e.prevRev);
    if (!deletes.length) out.push({ kind: 'phantom-write', detail: `etcd revision ${e.rev}: delete of ${e.name} (was at ${e.prevRev}) matches no delete request` });
    else if (deletes.every((w) => w.outcome.kind === 'failed')) {
      out.push({ kind: 'applied-answered-failed', detail: `delete of ${e.name} at ${e.prevRev} was answered as failed, yet etcd applied it at revision ${e.rev}` });
    }
  }
  for (const [op, puts] of putsByOp) {
    if (puts.length > 1) out.push({ kind: 'double-apply', detail: `${op} applied at revisions ${puts.map((p) => p.rev).join(', ')}` });
  }
  for (const w of h.writes) {
    if (w.end - w.start > h.maxAnswerMs) out.push({ kind: 'slow-answer', detail: `${w.type} ${w.id} took ${w.end - w.start} ms` });
    if (w.notStatus) out.push({ kind: 'not-a-status', detail: `${w.type} ${w.id} was answered without a Status` });
    if (w.outcome.kind !== 'ok') continue;
    if (w.type === 'delete') {
      // A delete answers the object as it was (or a Status): etcd must hold a delete of that state.
      if (!h.etcd.some((e) => e.type === 'delete' && e.name === w.name && e.prevRev === w.expectedRv)) {
        out.push({ kind: 'lost-ack', detail: `delete ${w.id} of ${w.name} at ${w.expectedRv} was acknowledged, and etcd holds no such delete` });
      }
      continue;
    }
    const e = etcdAt.get(w.outcome.rv);
    if (!(e !== undefined && e.name === w.name && e.type === 'put' && e.op === w.id)) {
      out.push({ kind: 'lost-ack', detail: `${w.type} ${w.id} of ${w.name} was acknowledged at ${w.outcome.rv}, which etcd does not hold` });
    }
  }
}

/** Counters: every update writes the value it read + 1 from the revision it read, so each step in etcd is +1. */
function checkCounters(h: History, out: Violation[]): void {
  const last = new Map<string, number>();
  for (const e of h.etcd) {
    if (e.type === 'delete') {
      last.delete(e.name);
      continue;
    }
    if (e.count === undefined) continue;
    const before = last.get(e.name);
    if (!e.created && before !== undefined && e.count !== before + 1) {
      out.push({ kind: 'lost-update', detail: `${e.name}: counter went from ${before} to ${e.count} at revision ${e.rev}` });
    }
    last.set(e.name, e.count);
  }
}

/**
 * Consistent lists: they see every write acknowledged before they started, hold exactly etcd's
 * state at their resourceVersion (every page of a continued list at it), and one client's
 * resourceVersions never go back.
 */
function checkLists(h: History, out: Violation[]): void {
  const acked = h.writes.filter((w) => w.outcome.kind === 'ok').sort((a, b) => a.end - b.end);
  const lastByClient = new Map<string, ListOp>();
  for (const l of [...h.lists].sort((a, b) => a.start - b.start)) {
    const newest = acked.filter((w) => w.end < l.start).reduce((m, w) => Math.max(m, (w.outcome as { rv: number }).rv), 0);
    if (newest > l.rv) out.push({ kind: 'stale-read', detail: `list on replica ${l.replica} at ${l.start} ms answered rv ${l.rv}, older than acknowledged write rv ${newest}` });
    const torn = l.pageRvs?.find((rv) => rv !== l.rv);
    if (torn !== undefined) out.push({ kind: 'list-mismatch', detail: `list on replica ${l.replica}: a page at rv ${torn}, the first at ${l.rv} (pages of one list are one snapshot)` });
    const expected = [...stateAt(h.etcd, l.rv).keys()].sort();
    const got = [...l.names].sort();
    if (expected.join(',') !== got.join(',')) {
      out.push({ kind: 'list-mismatch', detail: `list on replica ${l.replica} at rv ${l.rv}: ${got.length} objects, etcd holds ${expected.length} there` });
    }
    const prev = lastByClient.get(l.client);
    if (prev && l.rv < prev.rv) out.push({ kind: 'stale-read', detail: `${l.client}: list rv ${l.rv} after ${prev.rv}` });
    lastByClient.set(l.client, l);
  }
}

/**
 * Watches: within a chain every event is newer than the one before (no duplicate, no reordering,
 * no deleted object coming back), is a change etcd made, of the right type, and no change etcd
 * made between the chain's start and its last resourceVersion is missing.
 */
function checkWatch(chain: WatchChain, h: History, out: Violation[]): void {
  if (!chain.segments.length) return;
  const etcdAt = new Map(h.etcd.map((e) => [e.rev, e]));
  const from = chain.segments[0]!.from;
  let last = from;
  const seen = new Set<string>();
  const lastType = new Map<string, string>();
  const delivered = new Set<number>();
  for (const seg of chain.segments) {
    for (const ev of seg.events) {
      const id = `${ev.rv} ${ev.name}`;
      if (ev.rv <= last) {
        // A deleted object sent again is the worst of these: an informer puts it back in its cache.
        if (ev.type !== 'DELETED' && lastType.get(ev.name) === 'DELETED') {
          out.push({ kind: 'resurrection', detail: `watch ${chain.id}: ${ev.type} ${ev.name} rv ${ev.rv} after its DELETED (replica ${seg.replica})` });
        } else if (seen.has(id)) out.push({ kind: 'duplicate', detail: `watch ${chain.id}: ${ev.type} ${ev.name} rv ${ev.rv} again (replica ${seg.replica})` });
        else out.push({ kind: 'reorder', detail: `watch ${chain.id}: ${ev.type} ${ev.name} rv ${ev.rv} after rv ${last} (replica ${seg.replica})` });
        continue;
      }
      const e = etcdAt.get(ev.rv);
      if (!e || e.name !== ev.name) out.push({ kind: 'phantom-event', detail: `watch ${chain.id}: ${ev.type} ${ev.name} rv ${ev.rv} is no change of etcd's` });
      else if (watchType(e) !== ev.type) out.push({ kind: 'wrong-type', detail: `watch ${chain.id}: ${ev.type} ${ev.name} rv ${ev.rv}, etcd made a ${watchType(e)}` });
      seen.add(id);
      lastType.set(ev.name, ev.type);
      delivered.add(ev.rv);
      last = ev.rv;
    }
    for (const b of seg.bookmarks) if (b > last) last = b;
  }
  const missing = h.etcd.filter((e) => e.rev > from && e.rev <= last && !delivered.has(e.rev));
  if (missing.length) {
    out.push({
      kind: 'gap',
      detail: `watch ${chain.id}: ${missing.length} changes of etcd in (${from}, ${last}] never delivered, first ${watchType(missing[0]!)} ${missing[0]!.name} rv ${missing[0]!.rev}`,
    });
  }
}

/** Every replica ends with etcd's final state. */
function checkReplicas(h: History, out: Violation[]): void {
  const final = stateAt(h.etcd, Number.MAX_SAFE_INTEGER);
  const want = [...final].map(([n, rv]) => `${n}@${rv}`).sort().join(',');
  for (const f of h.final) {
    const got = f.objects.map((o) => `${o.name}@${o.rv}`).sort().join(',');
    if (got !== want) out.push({ kind: 'replicas-disagree', detail: `replica ${f.replica} ends with ${f.objects.length} objects, etcd with ${final.size} (or at other revisions)` });
  }
}

/** Checks a run's history; an empty list means no violation. */
export function checkHistory(h: History): Violation[] {
  const all: Violation[] = [];
  const etcd = [...h.etcd].sort((a, b) => a.rev - b.rev);
  const sorted: History = { ...h, etcd };
  checkWrites(sorted, all);
  checkCounters(sorted, all);
  checkLists(sorted, all);
  for (const chain of h.watches) checkWatch(chain, sorted, all);
  checkReplicas(sorted, all);
  const perKind = new Map<string, number>();
  return all.filter((v) => {
    const n = (perKind.get(v.kind) ?? 0) + 1;
    perKind.set(v.kind, n);
    return n <= maxPerKind;
  });
}

/** Violations counted by kind (for the report). */
export function countByKind(violations: readonly Violation[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of violations) counts[v.kind] = (counts[v.kind] ?? 0) + 1;
  return counts;
}

export type { WriteOp };
