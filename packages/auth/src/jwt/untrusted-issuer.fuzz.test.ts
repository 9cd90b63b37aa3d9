import fc from 'fast-check';
import { fuzzParameters, fuzzTimeoutMs } from '@plat/api-model/testing';
import { untrustedIssuer } from './untrusted-issuer.js';

const b64 = (text: string) => Buffer.from(text).toString('base64url');
/** Compact-JWT-shaped strings: three parts of base64url JSON (real, deep, wrong-typed) and noise. */
const tokens = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.tuple(fc.json(), fc.json(), fc.string({ maxLength: 20 })).map(([h, p, s]) => `${b64(h)}.${b64(p)}.${s}`),
  fc.record({ iss: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())) }, { requiredKeys: [] }).map((p) => `e30.${b64(JSON.stringify(p))}.sig`),
  fc.integer({ min: 1, max: 50_000 }).map((n) => `e30.${b64('['.repeat(n))}.sig`),
  fc.array(fc.constantFrom('.', 'e30', '=', '{', '-', '_', 'A'), { maxLength: 30 }).map((a) => a.join('')),
);

describe('untrustedIssuer (fuzz)', () => {
  it('reads the issuer of any string or says why not, without throwing, in bounded time', () => {
    fc.assert(
      fc.property(tokens, (token) => {
        const started = performance.now();
        const result = untrustedIssuer(token);
        expect('issuer' in result ? typeof result.issuer : typeof result.error).toBe('string');
        expect(performance.now() - started).toBeLessThan(1000);
      }),
      fuzzParameters(1000),
    );
  }, fuzzTimeoutMs(30_000));
});
