import fc from 'fast-check';
import { canonicalTrustBundle, createCertificateAuthority, readBundleCertificates, validateTrustBundle, type PemKeyPair } from '@plat/x509';
import { decodeTrustAnchors } from './decode-trust-anchors.js';
import { encodeTrustAnchors, trustAnchorFormats } from './encode-trust-anchors.js';
import { isTrustError } from './trust-error.js';
import { truststoreAlias } from './truststore-entries.js';

// The project's fuzz settings (as x509's pem.fuzz.test.ts): PLAT_FUZZ_RUNS=<n> runs every
// property n times, PLAT_FUZZ_SEED=<seed> replays a failure fast-check reported.
const long = Number(process.env['PLAT_FUZZ_RUNS']);
const seed = Number(process.env['PLAT_FUZZ_SEED']);
const fuzzParameters = (runs: number) => ({ numRuns: long > 0 ? long : runs, ...(process.env['PLAT_FUZZ_SEED'] ? { seed } : {}), endOnFailure: true });

let pool: PemKeyPair[];
beforeAll(async () => {
  // Names that stress aliases: non-ASCII, RFC 4514 escapes, a long one, two equal CNs.
  const names = ['root', 'Ünïcode, Root', 'a+b=c', 'x'.repeat(200), 'same', 'same', '日本語 CA', ' #lead'];
  pool = await Promise.all(names.map((commonName) => createCertificateAuthority({ commonName })));
});

describe('encodeTrustAnchors round trip', () => {
  it('any anchor set the validator accepts encodes and reads back equal, in every format', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { minLength: 0 }),
        fc.constantFrom(...trustAnchorFormats),
        fc.option(fc.string({ unit: 'binary', maxLength: 20 }), { nil: undefined }),
        fc.boolean(),
        async (picked, format, password, legacy) => {
          const canonical = canonicalTrustBundle(picked.map((i) => pool[i].certPem));
          if (picked.length > 0) expect(validateTrustBundle(canonical.pem)).toEqual([]);
          // Few iterations: the property is about the layout; the defaults are checked with keytool and openssl.
          const options = { password, legacy, iterations: 3, spiffeSequence: 1 };
          const bytes = await encodeTrustAnchors(canonical, format, options);
          const back = await decodeTrustAnchors(bytes, format, options);
          // The same certificates as the canonical PEM, in its order.
          expect(back.certificates.map((c) => Buffer.from(c.der).toString('hex'))).toEqual(readBundleCertificates(canonical.pem).map((c) => Buffer.from(c.der).toString('hex')));
          if (format === 'jks' || format === 'pkcs12') {
            const aliases = back.certificates.map((c) => c.alias);
            expect(new Set(aliases).size).toBe(aliases.length);
            canonical.anchors.forEach((a, i) => expect(aliases[i].endsWith(a.sha256.slice(0, 8)) || aliases[i].endsWith(a.sha256)).toBe(true));
            expect(aliases.every((x) => x === x.toLowerCase())).toBe(true);
          }
        },
      ),
      fuzzParameters(150),
    );
  }, 120_000);

  it('a damaged or foreign file is a DecodeFailed error, never another throw', async () => {
    const canonical = canonicalTrustBundle(pool.slice(0, 3).map((p) => p.certPem));
    const files = await Promise.all([
      encodeTrustAnchors(canonical, 'jks', { password: 'pw' }).then((b) => ['jks', b] as const),
      encodeTrustAnchors(canonical, 'pkcs12', { password: 'pw', iterations: 3 }).then((b) => ['pkcs12', b] as const),
      encodeTrustAnchors(canonical, 'pkcs12', { iterations: 3 }).then((b) => ['pkcs12', b] as const),
      encodeTrustAnchors(canonical, 'spiffe').then((b) => ['spiffe', b] as const),
    ]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), async ([format, bytes], at, value, cut) => {
        const damaged = Buffer.from(bytes);
        damaged[at % damaged.length] = value;
        for (const input of [damaged, damaged.subarray(0, cut % damaged.length)]) {
          try {
            await decodeTrustAnchors(input, format, { password: 'pw' });
          } catch (err) {
            if (!isTrustError(err, 'DecodeFailed')) throw err;
          }
        }
      }),
      fuzzParameters(300),
    );
  }, 120_000);
});

it('truststoreAlias is lower case and ends with the hash prefix for any subject', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.stringMatching(/^[0-9a-f]{64}$/), (cn, sha) => {
      const alias = truststoreAlias(`CN=${cn.replace(/[,+\\=]/g, '\\$&')}`, sha);
      expect(alias.endsWith(`-${sha.slice(0, 8)}`)).toBe(true);
      expect(alias).toBe(alias.toLowerCase());
      expect(alias.length).toBeLessThanOrEqual(64 + 9);
    }),
    fuzzParameters(300),
  );
});
