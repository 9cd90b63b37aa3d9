import { DeadlineTimers } from './timeout.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DeadlineTimers', () => {
  it('fires deadlines in order, skips cancelled ones and lets an empty length go', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.schedule(40, () => fired.push('a40'));
    const cancelB = timers.schedule(40, () => fired.push('b40'));
    timers.schedule(10, () => fired.push('c10'));
    const cancelD = timers.schedule(10, () => fired.push('d10'));
    await sleep(1);
    timers.schedule(40, () => fired.push('e40'));
    cancelB();
    cancelD();
    cancelD(); // twice is harmless
    expect(timers.size).toBe(2);
    await sleep(25);
    expect(fired).toEqual(['c10']);
    await sleep(45);
    expect(fired).toEqual(['c10', 'a40', 'e40']);
    await sleep(20);
    expect(timers.size).toBe(0);
    // Still usable after a length was let go.
    timers.schedule(5, () => fired.push('f5'));
    await sleep(30);
    expect(fired.at(-1)).toBe('f5');
  });

  it('keeps no deadline of a finished request: cancel after many requests leaves nothing to fire', async () => {
    const timers = new DeadlineTimers();
    let fired = 0;
    for (let i = 0; i < 10_000; i++) timers.schedule(20, () => fired++)();
    await sleep(60);
    expect(fired).toBe(0);
    expect(timers.size).toBe(0);
  });
});
