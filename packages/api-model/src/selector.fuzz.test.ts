import fc from 'fast-check';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { SelectorError } from './selector-error.js';
import { fuzzParameters, fuzzTimeoutMs } from './testing.js';

/** Selector-shaped text: the grammar's own tokens, label-ish words and arbitrary characters. */
const tokens = ['a', 'b.c/d', 'x-y', 'app', '=', '==', '!=', '!', ',', ' ', 'in', 'notin', '(', ')', '<', '>', '1', '\\', '\\,', '\\=', '', 'é', '\u0000'];
const selectorText = fc.oneof(
  fc.array(fc.constantFrom(...tokens), { maxLength: 40 }).map((a) => a.join('')),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

function expectOnlySelectorErrors(parse: () => { toString(): string }, reparse: (s: string) => { toString(): string }): void {
  let text: string;
  try {
    text = parse().toString();
  } catch (err) {
    expect(err).toBeInstanceOf(SelectorError);
    return;
  }
  // What parses prints as a selector that parses again. Printing need not be a fixed point at once:
  // like Kubernetes' fields.ParseSelector, parsing sorts the raw terms, and a term's printed form
  // (`==` printed as `=`, escapes) can sort elsewhere. After one more round it is one.
  const again = reparse(text).toString();
  expect(reparse(again).toString()).toBe(again);
}

describe('selectors (fuzz)', () => {
  it('label selectors parse or fail with a SelectorError, and print stably', () => {
    fc.assert(
      fc.property(selectorText, (s) => expectOnlySelectorErrors(() => parseLabelSelector(s), (t) => parseLabelSelector(t))),
      fuzzParameters(3000),
    );
  }, fuzzTimeoutMs(30_000));

  it('field selectors parse or fail with a SelectorError, and print stably', () => {
    fc.assert(
      fc.property(selectorText, (s) => expectOnlySelectorErrors(() => parseFieldSelector(s), (t) => parseFieldSelector(t))),
      fuzzParameters(3000),
    );
  }, fuzzTimeoutMs(30_000));

  it('answers long hostile selectors in linear time', () => {
    fc.assert(
      fc.property(fc.constantFrom('a in (', 'a,', '!a,', 'a=b,', '((((', 'a\\\\', 'a notin (x,'), fc.integer({ min: 1, max: 20_000 }), (piece, n) => {
        const started = performance.now();
        for (const parse of [parseLabelSelector, parseFieldSelector]) {
          try {
            parse(piece.repeat(n));
          } catch (err) {
            expect(err).toBeInstanceOf(SelectorError);
          }
        }
        expect(performance.now() - started).toBeLessThan(2000);
      }),
      fuzzParameters(40),
    );
  }, fuzzTimeoutMs(30_000));
});
