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

  it('answers the key asked last by its text, and another key after it from the map', () => {
    const memo = new BoundedMemo<number>(8, 64);
    memo.set('/apis/x/v1/things/a', 1);
    memo.set('/apis/x/v1/things/b', 2);
    // A fresh string of the same text, as a request's target is.
    const fresh = ['/apis/x/v1/things/', 'b'].join('');
    expect(memo.get(fresh)).toBe(2);
    expect(memo.get(fresh)).toBe(2);
    expect(memo.get('/apis/x/v1/things/a')).toBe(1);
    expect(memo.get('/apis/x/v1/things/c')).toBeUndefined();
    expect(memo.get('/apis/x/v1/things/a')).toBe(1);
    expect(memo.get('/apis/x/v1/things/b')).toBe(2);
    // Emptied when full: the key answered last is gone with the rest.
    for (let i = 0; i < 6; i++) memo.set(`k${i}`, i);
    expect(memo.get('k5')).toBe(5);
    memo.set('k6', 6);
    expect(memo.get('/apis/x/v1/things/b')).toBeUndefined();
    expect(memo.get('k5')).toBeUndefined();
    expect(memo.get('k6')).toBe(6);
  });
});
