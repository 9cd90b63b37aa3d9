import { setLongTimeout } from './watch.js';

describe('setLongTimeout', () => {
  it('waits in steps no longer than one timer takes and fires once, at the due time', async () => {
    const fired: number[] = [];
    const start = Date.now();
    setLongTimeout(() => fired.push(Date.now() - start), 230, 50);
    await new Promise((r) => setTimeout(r, 180));
    expect(fired).toEqual([]);
    // Polled, not a fixed sleep: on a loaded machine a late step timer can fire after a sleep due later.
    for (const end = Date.now() + 15_000; fired.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(225);
  });

  it('can be cancelled in any step', async () => {
    let fired = false;
    const cancel = setLongTimeout(() => (fired = true), 200, 50);
    await new Promise((r) => setTimeout(r, 120));
    cancel();
    await new Promise((r) => setTimeout(r, 200));
    expect(fired).toBe(false);
  });
});
