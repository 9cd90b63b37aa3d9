import { setLongTimeout } from './watch.js';

describe('setLongTimeout', () => {
  it('waits in steps no longer than one timer takes and fires once, at the due time', async () => {
    const fired: number[] = [];
    const start = Date.now();
    setLongTimeout(() => fired.push(Date.now() - start), 230, 50);
    await new Promise((r) => setTimeout(r, 180));
    expect(fired).toEqual([]);
    await new Promise((r) => setTimeout(r, 250));
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
