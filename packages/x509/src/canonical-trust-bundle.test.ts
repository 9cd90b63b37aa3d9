import { trustBundleFixtures, withHeaders } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { canonicalizeTrustBundle } from './canonical-trust-bundle.js';
import { readPemEntries } from './pem.js';
import { validateTrustBundle } from './trust-bundle.js';

let f: TrustBundleFixtures;

beforeAll(async () => {
  f = await trustBundleFixtures();
});

describe('canonicalizeTrustBundle', () => {
  it('merges bundles into one valid bundle holding each certificate once', () => {
    const out = canonicalizeTrustBundle([f.caA.certPem + f.caB.certPem, f.caB.certPem, f.caA.certPem]);
    expect(validateTrustBundle(out)).toEqual([]);
    expect(readPemEntries(out)).toHaveLength(2);
  });

  it('gives the same output whatever the order of bundles and certificates', () => {
    const one = canonicalizeTrustBundle([f.caA.certPem, f.caB.certPem]);
    const two = canonicalizeTrustBundle([f.caB.certPem + f.caA.certPem]);
    expect(two).toBe(one);
  });

  it('orders certificates by their DER bytes', () => {
    const ders = readPemEntries(canonicalizeTrustBundle([f.caB.certPem, f.caA.certPem])).map((e) => (e.kind === 'block' ? Buffer.from(e.bytes) : Buffer.alloc(0)));
    expect(Buffer.compare(ders[0], ders[1])).toBeLessThan(0);
  });

  it('drops headers, text between blocks and non-certificate blocks', () => {
    const messy = `# comment\n${withHeaders(f.caA.certPem, 'Comment: hi')}junk\n${f.caA.keyPem}\n-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n`;
    const out = canonicalizeTrustBundle([messy]);
    expect(out).toBe(canonicalizeTrustBundle([f.caA.certPem]));
    expect(out).not.toContain('Comment');
    expect(out).not.toContain('junk');
    expect(out.startsWith('-----BEGIN CERTIFICATE-----\n')).toBe(true);
  });

  it('re-encodes certificates with 64-column lines and a final newline', () => {
    const body = f.caA.certPem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
    const oneLine = `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;
    expect(canonicalizeTrustBundle([oneLine])).toBe(f.caA.certPem);
  });

  it('returns an empty string when there is nothing to project', () => {
    expect(canonicalizeTrustBundle([])).toBe('');
    expect(canonicalizeTrustBundle(['', 'no blocks'])).toBe('');
  });
});
