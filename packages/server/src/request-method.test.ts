import fc from 'fast-check';
import { upperCaseMethod } from './request-method.js';

describe('upperCaseMethod', () => {
  it.each([
    ['GET', 'GET'],
    ['get', 'GET'],
    ['Patch', 'PATCH'],
    ['', ''],
    ['gét', 'GÉT'],
    ['GÉT', 'GÉT'],
    ['ß', 'SS'],
  ])('answers %j as toUpperCase does', (method, want) => {
    expect(upperCaseMethod(method)).toBe(want);
  });

  it('answers what toUpperCase answers for any string (fast-check)', () => {
    const method = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'));
    fc.assert(
      fc.property(method, (m) => {
        expect(upperCaseMethod(m)).toBe(m.toUpperCase());
      }),
      { numRuns: 5000 },
    );
  });
});
