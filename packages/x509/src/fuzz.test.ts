import fc from 'fast-check';
import { trustBundleFixtures } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { canonicalTrustBundle } from './canonical-trust-bundle.js';
import { parseCertificate } from './certificate.js';
import { encodePem, readPemEntries } from './pem.js';
import { readPemBundle } from './pem-bundle.js';
import { validateTrustBundle } from './trust-bundle.js';
import type { TrustBundleFinding, TrustBundleFindingKind } from './trust-bundle.js';

// The project's fuzz settings (as pem.fuzz.test.ts): PLAT_FUZZ_RUNS=<n> runs every property n
// times, PLAT_FUZZ_SEED=<seed> replays a failure that fast-check reported.
const long = Number(process.env['PLAT_FUZZ_RUNS']);
const seed = Number(process.env['PLAT_FUZZ_SEED']);
const fuzzParameters = (runs: number) => ({ numRuns: long > 0 ? long : runs, ...(process.env['PLAT_FUZZ_SEED'] ? { seed } : {}), endOnFailure: true });
const fuzzTimeoutMs = (ms: number) => (long > 0 ? 3_600_000 : ms);

const kinds: readonly TrustBundleFindingKind[] = [
  'too-large', 'bad-block-type', 'pem-headers', 'skipped-pem', 'not-x509', 'not-ca', 'no-basic-constraints', 'duplicate', 'empty',
];
const tokens = ['-----BEGIN ', '-----END ', 'CERTIFICATE-----', '-----', '\n', '\r\n', ':', '=', ' ', '\t', 'Proc-Type: 4', '\u0000', '\u00e9', '\ud800', 'A'];

let f: TrustBundleFixtures;
let seeds: string[];
let ders: Uint8Array[];

beforeAll(async () => {
  f = await trustBundleFixtures();
  seeds = [f.caA.certPem, f.caB.certPem, f.leaf.certPem, f.noBasicConstraints.certPem, f.caA.keyPem];
  ders = seeds.slice(0, 4).map((pem) => {
    const [entry] = readPemEntries(pem);
    return entry.kind === 'block' ? entry.bytes : new Uint8Array(0);
  });
});

/** One edit of a bundle's text: overwrite a character, insert a PEM-ish token, cut a run, truncate, rotate. */
/** `arb` one time in `n`, else null (fc.option's freq is the other way round: null one time in freq). */
const sometimes = <T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight: n - 1 }, { arbitrary: arb, weight: 1 });

const textMutation = fc.record({
  op: fc.integer({ min: 0, max: 4 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  char: fc.integer({ min: 0, max: 0x7e }),
  token: fc.constantFrom(...tokens),
  cut: fc.integer({ min: 1, max: 80 }),
});
type TextMutation = typeof textMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateText(text: string, m: TextMutation): string {
  const at = Math.floor(m.at * (text.length + 1));
  switch (m.op) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(m.char) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + m.token + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(at + m.cut);
    case 3:
      return text.slice(0, at);
    default:
      return text.slice(at) + text.slice(0, at);
  }
}

/** Byte edits of a DER certificate, biased toward the tag and length octets near the start. */
const derMutation = fc.record({
  which: fc.nat(),
  flips: fc.array(
    fc.record({ at: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.nat()), xorBit: fc.option(fc.integer({ min: 0, max: 7 })), byte: fc.integer({ min: 0, max: 255 }) }),
    { minLength: 1, maxLength: 4 },
  ),
  truncateAt: sometimes(fc.double({ min: 0, max: 1, noNaN: true }), 5),
});
type DerMutation = typeof derMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateDer(m: DerMutation): Uint8Array {
  const out = Uint8Array.from(ders[m.which % ders.length]);
  for (const flip of m.flips) {
    const pos = flip.at % out.length;
    out[pos] = flip.xorBit === null ? flip.byte : out[pos] ^ (1 << flip.xorBit);
  }
  return m.truncateAt === null ? out : out.subarray(0, Math.floor(m.truncateAt * out.length));
}

/** A bundle: 1-4 blocks, each a mutated certificate or an intact seed (cert or key), now and then with a PEM header, tokens between, then text edits. */
const bundleCase = fc.record({
  blocks: fc.array(
    fc.record({
      mutated: fc.option(derMutation, { freq: 2 }), // half mutated certificates, half intact seeds
      seed: fc.integer({ min: 0, max: 4 }),
      header: sometimes(fc.constantFrom('Proc-Type: 4,ENCRYPTED\n', 'DEK-Info: AES-128-CBC,00\n', 'Comment: x\n'), 8),
      token: sometimes(fc.constantFrom(...tokens), 3),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  edits: fc.array(textMutation, { maxLength: 3 }),
});
type BundleCase = typeof bundleCase extends fc.Arbitrary<infer T> ? T : never;

function makeCase(c: BundleCase): string {
  let text = c.blocks
    .map((b) => {
      const block = b.mutated ? encodePem('CERTIFICATE', mutateDer(b.mutated)) : seeds[b.seed % seeds.length];
      // PEM headers (RFC 1421) go right after the BEGIN line.
      const withHeader = b.header === null ? block : block.replace('-----\n', `-----\n${b.header}`);
      return withHeader + (b.token ?? '');
    })
    .join('');
  for (const edit of c.edits) text = mutateText(text, edit);
  return text;
}

describe('hostile input', () => {
  // Go's pem.Decode (src/encoding/pem/pem.go) skips a block that does not decode and goes on
  // from the line after its BEGIN line: garbage between good blocks leaves the good ones intact.
  it('skips garbage blocks between good CA blocks as Go does: the bundle stays valid with the same anchors', () => {
    const garbage = fc.oneof(
      fc.constant('-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n'),
      fc.constant('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATES-----\n'),
      fc.constant('-----BEGIN CERTIFICATE\nAAAA\n'),
      fc.stringMatching(/^[A-Za-z0-9+/=!]{0,40}$/).map((body) => `-----BEGIN CERTIFICATE-----\n${body}=A\n-----END CERTIFICATE-----\n`),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(0, 1), fc.array(garbage, { maxLength: 3 })), { minLength: 1, maxLength: 4 }), (parts) => {
        const good = [f.caA.certPem, f.caB.certPem];
        const used = new Set(parts.map(([g]) => g));
        // A duplicate is its own finding; each good CA appears once.
        const ordered = [...used].map((g) => [g, parts.filter(([x]) => x === g).flatMap(([, junk]) => junk)] as const);
        const text = ordered.map(([g, junk]) => junk.join('') + good[g]).join('');
        const skipped: TrustBundleFinding[] = [];
        expect(validateTrustBundle(text, { onSkippedBlock: (finding) => skipped.push(finding) })).toEqual([]);
        expect(skipped).toHaveLength(ordered.reduce((n, [, junk]) => n + junk.length, 0));
        expect(canonicalTrustBundle([text]).pem).toBe(canonicalTrustBundle([...used].map((g) => good[g]!)).pem);
      }),
      fuzzParameters(300),
    );
  });

  it('gives findings or a clean result, never an exception, for mutated bundles', () => {
    const seen = new Set<TrustBundleFindingKind>();
    let valid = 0;
    fc.assert(
      fc.property(bundleCase, (c) => {
        const text = makeCase(c);
        const skipped: TrustBundleFinding[] = [];
        const findings = validateTrustBundle(text, { onSkippedBlock: (finding) => skipped.push(finding) });
        expect(Array.isArray(findings)).toBe(true);
        for (const finding of skipped) {
          seen.add(finding.kind);
          expect(finding).toEqual({ index: -1, kind: 'skipped-pem', detail: expect.stringMatching(/^skipped a .* block at line \d+ that does not parse as PEM: /) });
        }
        for (const finding of findings) {
          seen.add(finding.kind);
          expect(kinds).toContain(finding.kind);
          expect(Number.isInteger(finding.index) && finding.index >= -1).toBe(true);
          expect(typeof finding.detail).toBe('string');
          expect(finding.detail.length).toBeGreaterThan(0);
        }
        if (findings.length === 0) {
          valid++;
          // A bundle the validator accepts stays valid after canonicalization.
          expect(validateTrustBundle(canonicalTrustBundle([text]).pem)).toEqual([]);
        }
        // The strict reader and the validator agree: a clean bundle has no PEM problems but
        // skipped blocks (which Go skips too), and every other PEM problem makes it invalid.
        const problems = readPemBundle(text).problems.filter((p) => p.kind !== 'malformed');
        if (findings.length === 0) expect(problems).toEqual([]);
        if (problems.length > 0) expect(findings.length).toBeGreaterThan(0);
        expect(canonicalTrustBundle([text, f.caA.certPem]).anchors.length).toBeGreaterThan(0);
      }),
      fuzzParameters(1500),
    );
    expect(valid).toBeGreaterThan(0);
    // The mutations reach every per-entry rule, so the run exercises each branch.
    for (const kind of ['bad-block-type', 'pem-headers', 'skipped-pem', 'not-x509', 'not-ca', 'no-basic-constraints', 'duplicate'] as const) {
      expect(seen).toContain(kind);
    }
  }, fuzzTimeoutMs(60_000));

  it('parses mutated certificates into a result or an error, never an exception', () => {
    let parsedOk = 0;
    let failed = 0;
    fc.assert(
      fc.property(derMutation, (m) => {
        const result = parseCertificate(mutateDer(m));
        if (result.ok) {
          parsedOk++;
          expect(result.certificate.sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
        } else {
          failed++;
          expect(result.error).toMatch(/^x509: /);
        }
      }),
      fuzzParameters(2000),
    );
    // Flips inside signatures and names leave parseable certificates; both outcomes are exercised.
    expect(parsedOk).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
  }, fuzzTimeoutMs(60_000));

  it('never throws on random bytes, as DER or decoded as text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        expect(Array.isArray(validateTrustBundle(Buffer.from(bytes).toString('latin1')))).toBe(true);
        expect(parseCertificate(bytes).ok).toBe(false);
      }),
      fuzzParameters(500),
    );
  }, fuzzTimeoutMs(30_000));

  it('answers non-string input from untyped callers with a finding', () => {
    expect(validateTrustBundle(undefined as unknown as string)[0]?.kind).toBe('empty');
    expect(canonicalTrustBundle([null as unknown as string]).pem).toBe('');
  });
});
