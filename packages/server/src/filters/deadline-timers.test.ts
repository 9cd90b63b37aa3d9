import { DeadlineTimers } from './timeout.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `cond` holds (bounded): timings under a loaded CI machine are not exact. */
async function waitFor(cond: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(5);
  }
}

describe('DeadlineTimers', () => {
  it('fires deadlines in order, skips cancelled ones and lets an empty length go', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    // The short length is 200 ms, not less: d must still be pending when it is cancelled after
    // the sleep below, which a loaded machine can stretch by tens of milliseconds.
    timers.schedule(600, () => fired.push('a600'));
    const cancelB = timers.schedule(600, () => fired.push('b600'));
    timers.schedule(200, () => fired.push('c200'));
    const cancelD = timers.schedule(200, () => fired.push('d200'));
    await sleep(1);
    timers.schedule(600, () => fired.push('e600'));
    cancelB();
    cancelD();
    cancelD(); // twice is harmless
    expect(timers.size).toBe(2);
    await waitFor(() => fired.length >= 1);
    expect(fired[0]).toBe('c200');
    await waitFor(() => fired.length >= 3);
    await waitFor(() => timers.size === 0);
    await sleep(30);
    expect(fired).toEqual(['c200', 'a600', 'e600']);
    // Still usable after a length was let go.
    timers.schedule(5, () => fired.push('f5'));
    await waitFor(() => fired.length === 4);
    expect(fired.at(-1)).toBe('f5');
  });

  it('keeps no deadline of a finished request: cancel after many requests leaves nothing to fire', async () => {
    const timers = new DeadlineTimers();
    let fired = 0;
    for (let i = 0; i < 10_000; i++) timers.schedule(20, () => fired++)();
    await waitFor(() => timers.size === 0);
    expect(fired).toBe(0);
  });
});
