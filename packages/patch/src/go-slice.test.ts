import { appendAndDeduplicate, decodedCapacity } from './go-slice.js';

describe('decodedCapacity', () => {
  it('doubles as Go appends one element at a time, then grows by size classes', () => {
    expect([0, 1, 2, 3, 4, 5, 8, 9, 256].map(decodedCapacity)).toEqual([0, 1, 2, 4, 4, 8, 8, 16, 256]);
    expect(decodedCapacity(257)).toBe(512);
    expect(decodedCapacity(513)).toBe(848);
  });
});

describe('appendAndDeduplicate', () => {
  it('keeps Go order and leaves the live list alone when the append reallocates', () => {
    expect(appendAndDeduplicate(['x', 'y', 'x'], ['z', 'y'])).toEqual({ merged: ['x', 'y', 'z'], liveAfter: ['x', 'y', 'x'] });
  });

  it('writes into the live list when its array had room', () => {
    expect(appendAndDeduplicate(['a', 'b', 'c', 'a', 'd'], ['z'])).toEqual({
      merged: ['a', 'b', 'c', 'z', 'd'],
      liveAfter: ['a', 'b', 'c', 'z', 'd'],
    });
  });

  it('compares as Go interfaces do: type and value', () => {
    expect(appendAndDeduplicate([1, '1'], [1]).merged).toEqual([1, '1']);
  });
});
