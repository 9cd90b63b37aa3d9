import { ListBuffers, minPooledListBytes } from './list-buffers.js';

describe('ListBuffers', () => {
  it('hands out buffers of the exact length, and one given back again only after it came back', () => {
    const pool = new ListBuffers();
    const a = pool.take(100_000);
    expect(a.length).toBe(100_000);
    const b = pool.take(100_000);
    expect(b.buffer).not.toBe(a.buffer);
    pool.give(a);
    expect(pool.idleBytes).toBeGreaterThanOrEqual(100_000);
    const c = pool.take(90_000);
    expect(c.buffer).toBe(a.buffer);
    expect(c.length).toBe(90_000);
    expect(pool.idleBytes).toBe(0);
    // Not idle any more: the next one is new.
    expect(pool.take(90_000).buffer).not.toBe(a.buffer);
  });

  it('picks the smallest idle buffer that fits, and a new one when none does', () => {
    const pool = new ListBuffers();
    const big = pool.take(1_000_000);
    const small = pool.take(200_000);
    pool.give(big);
    pool.give(small);
    expect(pool.take(150_000).buffer).toBe(small.buffer);
    expect(pool.take(500_000).buffer).toBe(big.buffer);
    expect(pool.take(2_000_000).length).toBe(2_000_000);
  });

  it('leaves small bodies to node, and takes back only its own buffers, once each', () => {
    const pool = new ListBuffers();
    const small = pool.take(minPooledListBytes - 1);
    pool.give(small);
    pool.give(Buffer.allocUnsafe(200_000));
    expect(pool.idleBytes).toBe(0);
    const a = pool.take(100_000);
    pool.give(a);
    pool.give(a);
    const idle = pool.idleBytes;
    expect(pool.take(100_000).buffer).toBe(a.buffer);
    expect(pool.take(100_000).buffer).not.toBe(a.buffer);
    expect(idle).toBeLessThan(2 * 100_000);
  });

  it('keeps idle buffers up to its byte bound', () => {
    const pool = new ListBuffers(300_000);
    const taken = [pool.take(100_000), pool.take(100_000), pool.take(100_000), pool.take(100_000)];
    for (const b of taken) pool.give(b);
    expect(pool.idleBytes).toBeLessThanOrEqual(300_000);
    expect(pool.idleBytes).toBeGreaterThan(0);
  });
});
