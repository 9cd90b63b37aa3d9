import { generateName, generatedNameAlphabet, maxGeneratedNameLength, randomNameSuffix } from './generate-name.js';
import { nameIsDNSSubdomain } from './name-validation.js';

describe('generateName', () => {
  it('appends five characters from Kubernetes\' alphabet', () => {
    const name = generateName('web-');
    expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('is deterministic with an injected random source', () => {
    expect(generateName('x-', () => 0)).toBe('x-bbbbb');
    expect(generateName('x-', (n) => n - 1)).toBe('x-99999');
  });

  it('cuts a long base to 58 characters so the result has at most 63', () => {
    const base = 'a'.repeat(100);
    const name = generateName(base);
    expect(name).toHaveLength(63);
    expect(name.startsWith('a'.repeat(maxGeneratedNameLength))).toBe(true);
    expect(generateName('a'.repeat(58))).toHaveLength(63);
  });

  it('never splits a multi-byte character when cutting', () => {
    const name = generateName(`${'a'.repeat(57)}é`, () => 0);
    expect(name).toBe(`${'a'.repeat(57)}bbbbb`);
  });

  it('produces names that validate whenever the prefix validates', () => {
    for (let i = 0; i < 200; i++) expect(nameIsDNSSubdomain(generateName('p-'), false)).toEqual([]);
  });

  it('draws every alphabet character over many suffixes', () => {
    const seen = new Set(Array.from({ length: 400 }, () => randomNameSuffix()).join(''));
    expect([...seen].sort().join('')).toBe([...generatedNameAlphabet].sort().join(''));
  });
});
