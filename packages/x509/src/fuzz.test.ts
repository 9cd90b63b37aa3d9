import { trustBundleFixtures } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { canonicalTrustBundle } from './canonical-trust-bundle.js';
import { parseCertificate } from './certificate.js';
import { encodePem, readPemEntries } from './pem.js';
import { readPemBundle } from './pem-bundle.js';
import { validateTrustBundle } from './trust-bundle.js';
import type { TrustBundleFindingKind } from './trust-bundle.js';

// Deterministic (seeded) so a failure reproduces; bounded in count and time so the suite stays fast.
const maxCases = 3000;
const timeBudgetMs = 8000;
// On an idle machine the count bound ends each run (thousands of cases); under heavy load the time
// budget may end it first, and this floor only guards against a run that did nothing.
const minCases = 200;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const kinds: readonly TrustBundleFindingKind[] = [
  'too-large', 'bad-block-type', 'pem-headers', 'malformed-pem', 'not-x509', 'not-ca', 'no-basic-constraints', 'duplicate', 'empty',
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

function mutateText(rand: () => number, text: string): string {
  const at = Math.floor(rand() * (text.length + 1));
  switch (Math.floor(rand() * 5)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(Math.floor(rand() * 0x7f)) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + tokens[Math.floor(rand() * tokens.length)] + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(rand() * 80));
    case 3:
      return text.slice(0, at);
    default:
      return text.slice(at) + text.slice(0, at);
  }
}

function mutateDer(rand: () => number, der: Uint8Array): Uint8Array {
  const out = Uint8Array.from(der);
  const flips = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < flips; i++) {
    const at = Math.floor(rand() * out.length);
    // Length and tag octets near the start are the most interesting, so bias toward them.
    const pos = rand() < 0.5 ? Math.min(at, Math.floor(rand() * 40)) : at;
    out[pos] = rand() < 0.5 ? out[pos] ^ (1 << Math.floor(rand() * 8)) : Math.floor(rand() * 256);
  }
  return rand() < 0.2 ? out.subarray(0, Math.floor(rand() * out.length)) : out;
}

function makeCase(rand: () => number): string {
  const parts: string[] = [];
  const blocks = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < blocks; i++) {
    const choice = rand();
    if (choice < 0.45) parts.push(encodePem('CERTIFICATE', mutateDer(rand, ders[Math.floor(rand() * ders.length)])));
    else parts.push(seeds[Math.floor(rand() * seeds.length)]);
    if (rand() < 0.3) parts.push(tokens[Math.floor(rand() * tokens.length)]);
  }
  let text = parts.join('');
  const textMutations = Math.floor(rand() * 4);
  for (let i = 0; i < textMutations; i++) text = mutateText(rand, text);
  return text;
}

describe('hostile input', () => {
  it('gives findings or a clean result, never an exception, for thousands of mutated bundles', () => {
    const rand = prng(0x5eed);
    const seen = new Set<TrustBundleFindingKind>();
    const started = Date.now();
    let cases = 0;
    let valid = 0;
    while (cases < maxCases && Date.now() - started < timeBudgetMs) {
      const text = makeCase(rand);
      cases++;
      const findings = validateTrustBundle(text);
      expect(Array.isArray(findings)).toBe(true);
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
      // The strict reader and the validator agree: a clean bundle has no PEM problems, and every
      // PEM problem makes the bundle invalid.
      const problems = readPemBundle(text).problems;
      if (findings.length === 0) expect(problems).toEqual([]);
      if (problems.length > 0) expect(findings.length).toBeGreaterThan(0);
      expect(canonicalTrustBundle([text, f.caA.certPem]).anchors.length).toBeGreaterThan(0);
    }
    expect(cases).toBeGreaterThanOrEqual(minCases);
    expect(valid).toBeGreaterThan(0);
    // The mutations reach every per-entry rule, so the run exercises each branch.
    for (const kind of ['bad-block-type', 'pem-headers', 'malformed-pem', 'not-x509', 'not-ca', 'no-basic-constraints', 'duplicate'] as const) {
      expect(seen).toContain(kind);
    }
  });

  it('parses thousands of mutated certificates into a result or an error, never an exception', () => {
    const rand = prng(7);
    const started = Date.now();
    let parsedOk = 0;
    let cases = 0;
    while (cases < maxCases && Date.now() - started < timeBudgetMs / 2) {
      const result = parseCertificate(mutateDer(rand, ders[cases % ders.length]));
      cases++;
      if (result.ok) {
        parsedOk++;
        expect(result.certificate.sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
      } else {
        expect(result.error).toMatch(/^x509: /);
      }
    }
    expect(cases).toBeGreaterThanOrEqual(minCases);
    // Flips inside signatures and names leave parseable certificates; both outcomes are exercised.
    expect(parsedOk).toBeGreaterThan(0);
    expect(parsedOk).toBeLessThan(cases);
  });

  it('never throws on random bytes decoded as text', () => {
    const rand = prng(42);
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rand() * 400) }, () => Math.floor(rand() * 256));
      const text = Buffer.from(bytes).toString('latin1');
      expect(Array.isArray(validateTrustBundle(text))).toBe(true);
      expect(parseCertificate(bytes).ok).toBe(false);
    }
  });

  it('answers non-string input from untyped callers with a finding', () => {
    expect(validateTrustBundle(undefined as unknown as string)[0]?.kind).toBe('empty');
    expect(canonicalTrustBundle([null as unknown as string]).pem).toBe('');
  });
});
