import { EventWindow } from './event-window.js';

const ev = (revision: number, size = 10) => ({ revision, size });
const revisions = (w: EventWindow<{ revision: number; size: number }>, after = 0) => {
  const out: number[] = [];
  w.forEachAfter(after, (e) => out.push(e.revision));
  return out;
};

describe('EventWindow', () => {
  it('drops the oldest events past the event bound and reports the newest dropped revision', () => {
    const w = new EventWindow(3, 1_000);
    expect([ev(1), ev(2), ev(3)].map((e) => w.push(e))).toEqual([undefined, undefined, undefined]);
    expect(w.push(ev(4))).toBe(1);
    expect(revisions(w)).toEqual([2, 3, 4]);
    expect(w.stats()).toEqual({ events: 3, bytes: 30, maxEvents: 3, maxBytes: 1_000 });
  });

  it('drops the oldest events past the byte bound, the new one too when it alone is too big', () => {
    const w = new EventWindow(100, 100);
    w.push(ev(1, 40));
    w.push(ev(2, 40));
    expect(w.push(ev(3, 40))).toBe(1);
    expect(w.stats()).toMatchObject({ events: 2, bytes: 80 });
    expect(w.push(ev(4, 500))).toBe(4);
    expect(w.stats()).toMatchObject({ events: 0, bytes: 0 });
    w.push(ev(5, 10));
    expect(revisions(w)).toEqual([5]);
  });

  it('answers the events after a revision, and drops those up to a compacted one', () => {
    const w = new EventWindow(10_000, 1e9);
    for (let r = 10; r < 3000; r += 2) w.push(ev(r));
    expect(revisions(w, 2990)).toEqual([2992, 2994, 2996, 2998]);
    expect(revisions(w, 2991)).toEqual([2992, 2994, 2996, 2998]);
    expect(revisions(w, 5)[0]).toBe(10);
    w.dropThrough(2994);
    expect(revisions(w)).toEqual([2996, 2998]);
    expect(w.bytes).toBe(20);
    w.clear();
    expect(w.stats()).toMatchObject({ events: 0, bytes: 0 });
  });

  it('keeps its accounting across many pushes (the array front is reclaimed on the way)', () => {
    const w = new EventWindow(1000, 1e9);
    for (let r = 1; r <= 50_000; r++) w.push(ev(r, 3));
    expect(w.stats()).toMatchObject({ events: 1000, bytes: 3000 });
    expect(revisions(w, 49_997)).toEqual([49_998, 49_999, 50_000]);
  });
});
