import fc from 'fast-check';
import { decodePemBase64, readPemEntries } from './pem.js';
import { validateTrustBundle } from './trust-bundle.js';

// The project's fuzz settings (as @plat/api-model/testing gives them to the packages above this
// one): PLAT_FUZZ_RUNS=<n> runs every property n times, PLAT_FUZZ_SEED=<seed> replays a failure.
const long = Number(process.env['PLAT_FUZZ_RUNS']);
const seed = Number(process.env['PLAT_FUZZ_SEED']);
const fuzzParameters = (runs: number) => ({ numRuns: long > 0 ? long : runs, ...(process.env['PLAT_FUZZ_SEED'] ? { seed } : {}), endOnFailure: true });
const fuzzTimeoutMs = (ms: number) => (long > 0 ? 3_600_000 : ms);

/** PEM-shaped text: lines of BEGIN/END markers, headers, base64 and noise, in any order. */
const line = fc.oneof(
  fc.constantFrom('-----BEGIN CERTIFICATE-----', '-----END CERTIFICATE-----', '-----BEGIN X-----', '-----END X-----', '-----BEGIN CERTIFICATE', 'Proc-Type: 4,ENCRYPTED', 'MIIB', 'AAAA', 'AA==', '', '   ', '\r', '=', '-----'),
  fc.string({ maxLength: 40 }),
);
const pemText = fc.array(line, { maxLength: 60 }).map((lines) => lines.join('\n'));

describe('PEM reading (fuzz)', () => {
  it('reads any text into entries and validates it into findings, never throwing', () => {
    fc.assert(
      fc.property(pemText, (text) => {
        const entries = readPemEntries(text);
        entries.forEach((e, i) => expect(e.index).toBe(i));
        const findings = validateTrustBundle(text);
        expect(Array.isArray(findings)).toBe(true);
      }),
      fuzzParameters(2000),
    );
  }, fuzzTimeoutMs(30_000));

  it('stays linear on many repeated lines', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1000, max: 30_000 }), (lines, n) => {
        const text = `${lines.join('\n')}\n`.repeat(n).slice(0, 1024 * 1024);
        const started = performance.now();
        readPemEntries(text);
        validateTrustBundle(text);
        expect(performance.now() - started).toBeLessThan(3000);
      }),
      fuzzParameters(25),
    );
  }, fuzzTimeoutMs(60_000));

  it('decodes a body of base64 and line feeds alike with and without other whitespace (the fast path and the general one)', () => {
    const body = fc.array(fc.constantFrom('A', 'z', '9', '+', '/', '=', '\n', 'AAAA', 'AA==', 'aGk=', 'aGVs\nbG8='), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(body, (text) => {
        const plain = decodePemBase64(text);
        const spaced = decodePemBase64(text.replaceAll('\n', ' \r\n\t'));
        expect(plain === undefined ? undefined : Buffer.from(plain).toString('hex')).toBe(spaced === undefined ? undefined : Buffer.from(spaced).toString('hex'));
      }),
      fuzzParameters(2000),
    );
  });
});
