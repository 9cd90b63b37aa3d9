import fc from 'fast-check';
import { isStatusError } from '@plat/api-model';
import { fuzzParameters, fuzzTimeoutMs } from '@plat/api-model/testing';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { parseResourceVersion } from './resource-version.js';

const prefix = '/certificates.plat.io/clustertrustbundles/';

/** Tokens: base64 of JSON-ish text (real tokens, mangled ones, other JSON) and arbitrary strings. */
const tokenText = fc.oneof(
  fc.string({ maxLength: 100 }),
  fc.json().map((j) => Buffer.from(j).toString('base64')),
  fc
    .record({ v: fc.oneof(fc.constant('meta.k8s.io/v1'), fc.string()), rv: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)), start: fc.oneof(fc.string(), fc.constant('../x'), fc.constant('/abs'), fc.integer()) }, { requiredKeys: [] })
    .map((o) => Buffer.from(JSON.stringify(o)).toString('base64')),
);

function expectBadRequestOnly(run: () => unknown): void {
  try {
    run();
  } catch (err) {
    if (!isStatusError(err, 'BadRequest')) throw err;
  }
}

describe('continue tokens and resourceVersions (fuzz)', () => {
  it('decodes a token or answers 400, never letting a token leave its prefix', () => {
    fc.assert(
      fc.property(tokenText, (token) =>
        expectBadRequestOnly(() => {
          const { startKey, revision } = decodeContinue(token, prefix);
          expect(startKey.startsWith(prefix)).toBe(true);
          expect(startKey.slice(prefix.length).split('/')).not.toContain('..');
          expect(Number.isInteger(revision)).toBe(true);
        }),
      ),
      fuzzParameters(3000),
    );
  }, fuzzTimeoutMs(30_000));

  it('round-trips every token it hands out', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9][a-z0-9.:-]{0,60}$/), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (name, rv) => {
        expect(decodeContinue(encodeContinue(prefix + name, prefix, rv), prefix)).toEqual({ revision: rv, startKey: prefix + name });
      }),
      fuzzParameters(1000),
    );
  }, fuzzTimeoutMs(30_000));

  it('parses a resourceVersion or answers 400', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.bigInt({ min: -1n, max: 2n ** 70n }).map(String)), (rv) =>
        expectBadRequestOnly(() => {
          const parsed = parseResourceVersion(rv);
          if (parsed !== undefined) expect(Number.isSafeInteger(parsed) && parsed >= 0).toBe(true);
        }),
      ),
      fuzzParameters(3000),
    );
  }, fuzzTimeoutMs(30_000));
});
