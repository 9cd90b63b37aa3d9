import { newRequestUUID } from './request-uuid.js';

describe('newRequestUUID', () => {
  it('makes version 4 UUIDs in the canonical lower-case form, none repeated, across several batches of random bytes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = newRequestUUID();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(1000);
  });

  it('uses every hex digit in every free position (random bits, not a fixed pattern)', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...newRequestUUID()].forEach((c, at) => digits[at]!.add(c));
    const fixed = new Map([
      [8, '-'],
      [13, '-'],
      [14, '4'],
      [18, '-'],
      [23, '-'],
    ]);
    for (let at = 0; at < 36; at++) {
      if (fixed.has(at)) expect([...digits[at]!]).toEqual([fixed.get(at)]);
      else if (at === 19) expect([...digits[at]!].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(digits[at]!.size).toBe(16);
    }
  });
});
