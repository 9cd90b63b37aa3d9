import { bookmarkBeforeDeadlineMs, scheduleBookmarks } from './bookmark-schedule.js';

/** Runs a schedule for `forMs` and answers when (ms after the start) each bookmark went out. */
async function record(opts: { intervalMs: number; deadlineInMs?: number }, forMs: number): Promise<number[]> {
  const start = Date.now();
  const sent: number[] = [];
  const cancel = scheduleBookmarks(() => sent.push(Date.now() - start), {
    intervalMs: opts.intervalMs,
    deadline: opts.deadlineInMs === undefined ? undefined : start + opts.deadlineInMs,
  });
  await new Promise((r) => setTimeout(r, forMs));
  cancel();
  return sent;
}

describe('scheduleBookmarks (kube cacher timing)', () => {
  it('sends every interval, once more 2 s before the deadline, and nothing after', async () => {
    // interval 400 ms, deadline at 3 s: bookmarks at 400, 800, then 1000 (= 3 s - 2 s), then none.
    const sent = await record({ intervalMs: 400, deadlineInMs: bookmarkBeforeDeadlineMs + 1000 }, 1700);
    // Three on time; two when a loaded machine runs the first interval bookmark 200 ms late, as the
    // next interval then starts after the pre-deadline one (kube's cacher reschedules the same way).
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThanOrEqual(3);
    const [last, beforeLast] = [sent.at(-1)!, sent.at(-2)!];
    expect(sent[0]).toBeGreaterThanOrEqual(399);
    sent.slice(1, -1).forEach((t, i) => expect(t - sent[i]!).toBeGreaterThanOrEqual(399));
    // The pre-deadline one is not an interval after the one before it: it is due at 1000 ms, and
    // the interval ones kept coming until then.
    expect(last).toBeGreaterThanOrEqual(999);
    expect(last - beforeLast).toBeLessThan(400);
  });

  it('sends the pre-deadline bookmark long before the next interval, and none to a watch shorter than 2 s', async () => {
    const [long, short] = await Promise.all([
      record({ intervalMs: 60_000, deadlineInMs: bookmarkBeforeDeadlineMs + 200 }, 900),
      record({ intervalMs: 100, deadlineInMs: bookmarkBeforeDeadlineMs - 500 }, 900),
    ]);
    expect(long).toHaveLength(1);
    expect(long[0]).toBeGreaterThanOrEqual(199);
    expect(short).toEqual([]);
  });

  it('without a deadline sends every interval until cancelled', async () => {
    const sent = await record({ intervalMs: 150 }, 1000);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.length).toBeLessThanOrEqual(6);
    sent.forEach((t, i) => expect(t - (sent[i - 1] ?? 0)).toBeGreaterThanOrEqual(149));
  });
});
