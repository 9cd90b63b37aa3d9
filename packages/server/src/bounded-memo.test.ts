import { BoundedMemo } from './bounded-memo.js';

describe('BoundedMemo', () => {
  it('answers what was set, and starts empty again once it holds maxEntries', () => {
    const memo = new BoundedMemo<number>(3, 16);
    memo.set('a', 1);
    memo.set('b', 2);
    memo.set('a', 10);
    expect(memo.get('a')).toBe(10);
    expect(memo.get('b')).toBe(2);
    expect(memo.get('c')).toBeUndefined();
    memo.set('c', 3);
    // Full (3 entries): the next new answer empties it first.
    memo.set('d', 4);
    expect(memo.get('a')).toBeUndefined();
    expect(memo.get('c')).toBeUndefined();
    expect(memo.get('d')).toBe(4);
    expect(memo.maxKeyLength).toBe(16);
  });
});
