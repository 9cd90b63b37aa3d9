import fc from 'fast-check';
import { JsonDecodeError, decodeJson } from './json-decode.js';
import { encodeJson } from './json-encode.js';
import { fuzzParameters, fuzzTimeoutMs } from './testing.js';

/** JSON-ish text: real JSON, JSON cut or spliced, and soups of JSON's own characters. */
const jsonish = fc.oneof(
  fc.json(),
  fc.json().chain((t) => fc.nat({ max: t.length }).map((n) => t.slice(0, n))),
  fc.tuple(fc.json(), fc.json(), fc.nat()).map(([a, b, n]) => a.slice(0, n % (a.length + 1)) + b),
  fc.array(fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', '\\', 'u', '0', '1', '-', 'e', '.', 'true', 'null', '"a"', '\n', '\u0001', '\ufeff')).map((a) => a.join('')),
  fc.string({ unit: 'binary' }),
);

describe('decodeJson (fuzz)', () => {
  it('accepts exactly what JSON.parse accepts, with the same value, and throws nothing but JsonDecodeError', () => {
    fc.assert(
      fc.property(jsonish, (text) => {
        let native: { value: unknown } | undefined;
        try {
          native = { value: JSON.parse(text) };
        } catch {
          native = undefined;
        }
        let ours: { value: unknown } | undefined;
        try {
          ours = decodeJson(text, { maxDepth: 100_000 });
        } catch (err) {
          if (!(err instanceof JsonDecodeError)) throw err;
          // Numbers beyond float64 are the one thing JSON.parse takes (as Infinity) and Go refuses.
          if (err.code === 'number') return;
          ours = undefined;
        }
        expect(ours === undefined).toBe(native === undefined);
        if (ours && native && !/\d{16}/.test(text)) expect(ours.value).toEqual(native.value);
      }),
      fuzzParameters(2000),
    );
  }, fuzzTimeoutMs(30_000));

  it('round-trips every int64 integer exactly through encodeJson', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), fc.json(), (ints, other) => {
        const text = `{"ints":[${ints.join(',')}],"other":${other}}`;
        const { value } = decodeJson(text, { maxDepth: 100_000 });
        const back = encodeJson(value);
        expect(decodeJson(back, { maxDepth: 100_000 }).value).toEqual(value);
        expect(back.slice(0, back.indexOf(']') + 1)).toBe(`{"ints":[${ints.join(',')}]`);
      }),
      fuzzParameters(500),
    );
  }, fuzzTimeoutMs(30_000));

  it('answers deep or huge input in linear time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300_000 }), fc.constantFrom('[', '{"a":', '[{"a":'), (n, open) => {
        const started = performance.now();
        try {
          decodeJson(open.repeat(n));
        } catch (err) {
          expect(err).toBeInstanceOf(JsonDecodeError);
        }
        expect(performance.now() - started).toBeLessThan(2000);
      }),
      fuzzParameters(50),
    );
  }, fuzzTimeoutMs(30_000));
});
