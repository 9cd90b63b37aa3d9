import { trustBundleFixtures, withHeaders } from '../test/fixtures.js';
import type { TrustBundleFixtures } from '../test/fixtures.js';
import { readPemBundle } from './pem-bundle.js';

let f: TrustBundleFixtures;

beforeAll(async () => {
  f = await trustBundleFixtures();
});

describe('readPemBundle', () => {
  it('returns the certificate blocks of a clean bundle and no problems', () => {
    const bundle = readPemBundle(f.caA.certPem + f.caB.certPem);
    expect(bundle.problems).toEqual([]);
    expect(bundle.blocks.map((b) => [b.index, b.type])).toEqual([[0, 'CERTIFICATE'], [1, 'CERTIFICATE']]);
  });

  it('reports an empty bundle', () => {
    expect(readPemBundle('nothing here').problems).toEqual([{ kind: 'empty', index: -1, message: 'no PEM block found' }]);
  });

  it('reports each problem with its entry index', () => {
    const text = f.caA.certPem + f.caA.keyPem + withHeaders(f.caB.certPem, 'Comment: x') + f.caA.certPem + '-----BEGIN CERTIFICATE-----\n@@@@\n-----END CERTIFICATE-----\n';
    expect(readPemBundle(text).problems).toEqual([
      { kind: 'not-certificate', index: 1, message: 'entry 1 has block type PRIVATE KEY, not CERTIFICATE' },
      { kind: 'headers', index: 2, message: 'entry 2 has PEM block headers' },
      { kind: 'malformed', index: 4, message: 'entry 4 is not valid PEM: invalid base64 data' },
      { kind: 'duplicate', index: 0, indices: [0, 3], message: 'entries 0, 3 hold the same block' },
    ]);
  });

  it('does not report an empty bundle when the only block is malformed', () => {
    expect(readPemBundle('-----BEGIN CERTIFICATE-----\n-----END X-----\n').problems.map((p) => p.kind)).toEqual(['malformed']);
  });
});
