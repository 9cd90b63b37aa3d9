import { checkHistory, countByKind } from './checker.js';
import type { EtcdEvent, History, WatchChain, WriteOp } from './history.js';

/**
 * A small, correct run: a and b created, a incremented twice (the second time through the other
 * replica), b deleted, one consistent list, one watch chain resumed once, both replicas agreeing.
 */
function baseline(): History {
  const etcd: EtcdEvent[] = [
    { rev: 10, type: 'put', name: 'a', op: 'c1', count: 0, created: true },
    { rev: 11, type: 'put', name: 'b', op: 'c2', count: 0, created: true },
    { rev: 12, type: 'put', name: 'a', op: 'u1', count: 1, created: false, prevRev: 10 },
    { rev: 13, type: 'put', name: 'a', op: 'u2', count: 2, created: false, prevRev: 12 },
    { rev: 14, type: 'delete', name: 'b', created: false, prevRev: 11 },
  ];
  const writes: WriteOp[] = [
    { id: 'c1', client: 'x', replica: 0, type: 'create', name: 'a', start: 0, end: 5, count: 0, outcome: { kind: 'ok', rv: 10 } },
    { id: 'c2', client: 'y', replica: 1, type: 'create', name: 'b', start: 1, end: 6, count: 0, outcome: { kind: 'ok', rv: 11 } },
    { id: 'u1', client: 'x', replica: 0, type: 'update', name: 'a', start: 10, end: 15, expectedRv: 10, count: 1, outcome: { kind: 'ok', rv: 12 } },
    // Its answer was lost (500 outcome unknown); etcd applied it.
    { id: 'u2', client: 'y', replica: 1, type: 'update', name: 'a', start: 20, end: 40, expectedRv: 12, count: 2, outcome: { kind: 'unknown', code: 500, message: 'outcome unknown' } },
    // Lost the race: a 409 that etcd did not apply.
    { id: 'u3', client: 'x', replica: 0, type: 'update', name: 'a', start: 21, end: 25, expectedRv: 12, count: 2, outcome: { kind: 'failed', code: 409, reason: 'Conflict' } },
    { id: 'd1', client: 'x', replica: 0, type: 'delete', name: 'b', start: 50, end: 55, expectedRv: 11, outcome: { kind: 'ok', rv: 14 } },
  ];
  const watches: WatchChain[] = [
    {
      id: 'w1',
      segments: [
        { replica: 0, from: 9, events: [{ type: 'ADDED', name: 'a', rv: 10 }, { type: 'ADDED', name: 'b', rv: 11 }], bookmarks: [], end: 'timeout' },
        {
          replica: 1,
          from: 11,
          events: [
            { type: 'MODIFIED', name: 'a', rv: 12 },
            { type: 'MODIFIED', name: 'a', rv: 13 },
            { type: 'DELETED', name: 'b', rv: 14 },
          ],
          bookmarks: [14],
          end: 'closed',
        },
      ],
    },
  ];
  return {
    writes,
    lists: [{ client: 'x', replica: 1, start: 16, end: 18, rv: 12, names: ['a', 'b'] }],
    watches,
    etcd,
    final: [
      { replica: 0, rv: 14, objects: [{ name: 'a', rv: 13 }] },
      { replica: 1, rv: 14, objects: [{ name: 'a', rv: 13 }] },
    ],
    maxAnswerMs: 60_000,
  };
}

const kinds = (h: History) => countByKind(checkHistory(h));
const seg = (h: History, i: number) => h.watches[0]!.segments[i]!;

describe('the chaos history checker', () => {
  it('finds nothing wrong in a correct history', () => {
    expect(checkHistory(baseline())).toEqual([]);
  });

  it('reports an event delivered twice on one watch (across a resumption)', () => {
    const h = baseline();
    seg(h, 1).events.unshift({ type: 'ADDED', name: 'b', rv: 11 });
    expect(kinds(h)).toEqual({ duplicate: 1 });
  });

  it('reports an event older than one already delivered', () => {
    const h = baseline();
    seg(h, 1).events = [{ type: 'MODIFIED', name: 'a', rv: 13 }, { type: 'MODIFIED', name: 'a', rv: 12 }, { type: 'DELETED', name: 'b', rv: 14 }];
    expect(kinds(h)).toEqual({ reorder: 1, gap: 1 });
  });

  it('reports a deleted object sent again as ADDED after its DELETED', () => {
    const h = baseline();
    seg(h, 1).events.push({ type: 'ADDED', name: 'b', rv: 11 });
    expect(kinds(h)).toEqual({ resurrection: 1 });
  });

  it('reports a change of etcd a watch skipped (a gap against etcd history)', () => {
    const h = baseline();
    seg(h, 1).events.splice(1, 1);
    expect(kinds(h)).toEqual({ gap: 1 });
  });

  it('reports an event that is no change of etcd, or of the wrong type', () => {
    const h = baseline();
    seg(h, 1).events[0] = { type: 'ADDED', name: 'a', rv: 12 };
    seg(h, 1).events.push({ type: 'MODIFIED', name: 'zzz', rv: 15 });
    expect(kinds(h)).toEqual({ 'wrong-type': 1, 'phantom-event': 1 });
  });

  it('reports an acknowledged write etcd does not hold (lost ack)', () => {
    const h = baseline();
    h.etcd = h.etcd.filter((e) => e.rev !== 12);
    h.etcd.find((e) => e.rev === 13)!.prevRev = 10;
    // The watch saw rv 12 that etcd no longer has, and the counter jumps from 0 to 2.
    expect(kinds(h)).toMatchObject({ 'lost-ack': 1, 'lost-update': 1, 'phantom-event': 1 });
  });

  it('reports an acknowledged delete etcd never made', () => {
    const h = baseline();
    h.etcd = h.etcd.filter((e) => e.rev !== 14);
    seg(h, 1).events.pop();
    seg(h, 1).bookmarks = [13];
    h.final.forEach((f) => f.objects.push({ name: 'b', rv: 11 }));
    expect(kinds(h)).toEqual({ 'lost-ack': 1 });
  });

  it('reports a change etcd made that nobody asked for (phantom write)', () => {
    const h = baseline();
    h.etcd.push({ rev: 15, type: 'put', name: 'c', op: 'nobody', count: 0, created: true });
    h.final.forEach((f) => f.objects.push({ name: 'c', rv: 15 }));
    expect(kinds(h)).toEqual({ 'phantom-write': 1 });
  });

  it('reports a write etcd applied that the client was told had failed (a 409 for our own write)', () => {
    const h = baseline();
    h.writes.find((w) => w.id === 'u2')!.outcome = { kind: 'failed', code: 409, reason: 'Conflict' };
    expect(kinds(h)).toEqual({ 'applied-answered-failed': 1 });
  });

  it('reports a write applied twice', () => {
    const h = baseline();
    h.etcd.push({ rev: 15, type: 'put', name: 'a', op: 'u2', count: 3, created: false, prevRev: 13 });
    h.final.forEach((f) => (f.objects = [{ name: 'a', rv: 15 }]));
    expect(kinds(h)).toEqual({ 'double-apply': 1 });
  });

  it('reports a lost update on a counter (two increments from the same value)', () => {
    const h = baseline();
    h.etcd.find((e) => e.rev === 13)!.count = 1;
    expect(kinds(h)).toEqual({ 'lost-update': 1 });
  });

  it('reports a consistent list older than a write acknowledged before it started, or not etcd state', () => {
    const h = baseline();
    h.lists.push({ client: 'y', replica: 0, start: 60, end: 61, rv: 11, names: ['a', 'b'] });
    h.lists.push({ client: 'z', replica: 0, start: 62, end: 63, rv: 14, names: ['a', 'b'] });
    expect(kinds(h)).toEqual({ 'stale-read': 1, 'list-mismatch': 1 });
  });

  it('reports a paginated list whose pages are not all at the first page\'s resourceVersion', () => {
    const h = baseline();
    h.lists[0]!.pageRvs = [12, 12];
    expect(kinds(h)).toEqual({});
    h.lists[0]!.pageRvs = [12, 13];
    expect(kinds(h)).toEqual({ 'list-mismatch': 1 });
  });

  it('reports replicas that disagree with each other or with etcd at the end', () => {
    const h = baseline();
    h.final[1]!.objects.push({ name: 'b', rv: 11 });
    expect(kinds(h)).toEqual({ 'replicas-disagree': 1 });
  });

  it('reports an answer slower than the request timeout and an error that is not a Status', () => {
    const h = baseline();
    h.writes[3]!.end = h.writes[3]!.start + 70_000;
    h.writes[4]!.notStatus = true;
    expect(kinds(h)).toEqual({ 'slow-answer': 1, 'not-a-status': 1 });
  });
});
