import fc from 'fast-check';
import { encodeJson, type ApiObject } from '@plat/api-model';
import { EncodedObjects } from './encoded-objects.js';
import { servedItem, withTypeMeta, type ResourceScope } from './scope.js';
import { WatchEventLines } from './watch-event-lines.js';

/** The parts of a served resource's scope that encoding reads; served as v1beta1 with one field renamed (a conversion). */
function scopeOf(encodings = new EncodedObjects()): ResourceScope {
  const scope = {
    def: {
      kind: 'ClusterTrustBundle',
      group: 'certificates.plat.io',
      version: 'v1beta1',
      strategy: { servedAs: (obj: ApiObject) => ({ ...obj, renamed: (obj as { spec?: unknown }).spec, spec: undefined }) },
    },
    apiVersion: 'certificates.plat.io/v1beta1',
    storageApiVersion: 'certificates.plat.io/v1beta1',
    encodings,
  } as unknown as ResourceScope;
  scope.encodingView = { kind: scope.def.kind, apiVersion: scope.apiVersion, servedItem: (stored) => servedItem(scope, stored) };
  return scope;
}

const storedObject = fc.record({
  apiVersion: fc.constant('certificates.plat.io/v1beta1'),
  kind: fc.constant('ClusterTrustBundle'),
  metadata: fc.record({
    name: fc.string({ maxLength: 12 }),
    uid: fc.uuid(),
    resourceVersion: fc.stringMatching(/^[1-9][0-9]{0,5}$/),
    annotations: fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 12 }), { maxKeys: 3 }),
  }),
  spec: fc.record({ signerName: fc.string({ maxLength: 10 }), trustBundle: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
}) as fc.Arbitrary<ApiObject>;

describe('WatchEventLines', () => {
  it('writes the bytes of the event encoded on its own, cold and warm, one Buffer for every watcher', () => {
    fc.assert(
      fc.property(storedObject, fc.constantFrom('ADDED' as const, 'MODIFIED' as const), (obj, type) => {
        const scope = scopeOf();
        const lines = new WatchEventLines();
        const expected = `${encodeJson({ type, object: withTypeMeta(scope, obj) })}\n`;
        const first = lines.line(scope, type, obj);
        expect(first.toString('utf8')).toBe(expected);
        // Another watcher's copy of the same revision.
        const again = lines.line(scope, type, { ...obj, metadata: { ...obj.metadata } });
        expect(again).toBe(first);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps ADDED and MODIFIED of one revision apart, and encodes an object without uid each time', () => {
    const scope = scopeOf();
    const lines = new WatchEventLines();
    const obj = { apiVersion: 'certificates.plat.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'a', uid: 'u', resourceVersion: '7' } };
    expect(lines.line(scope, 'ADDED', obj).toString()).toMatch(/^\{"type":"ADDED","object":\{"kind":"ClusterTrustBundle"/);
    expect(lines.line(scope, 'MODIFIED', obj).toString()).toMatch(/^\{"type":"MODIFIED",/);
    const noUid = { ...obj, metadata: { name: 'a', resourceVersion: '7' } };
    expect(lines.line(scope, 'MODIFIED', noUid)).not.toBe(lines.line(scope, 'MODIFIED', noUid));
    expect(lines.size).toBe(2);
  });

  it('keeps each line in memory of its own, not in a slice of a pool block it would hold whole', () => {
    const obj = { apiVersion: 'certificates.plat.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'small', uid: 'u', resourceVersion: '3' }, spec: {} } as ApiObject;
    const line = new WatchEventLines().line(scopeOf(), 'ADDED', obj);
    // A short Buffer.concat() is a slice of Node's 8 KiB pool: its ArrayBuffer is the whole block.
    expect(Buffer.concat([Buffer.from('{'), Buffer.from('}')]).buffer.byteLength).toBeGreaterThan(2);
    expect(line.buffer.byteLength).toBe(line.length);
  });

  it('keeps no more bytes than its bound', () => {
    const scope = scopeOf();
    const lines = new WatchEventLines(4096);
    for (let i = 1; i <= 100; i++) {
      lines.line(scope, 'MODIFIED', { apiVersion: 'certificates.plat.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'a', uid: 'u', resourceVersion: String(i) }, spec: { trustBundle: 'x'.repeat(200) } });
    }
    // Each line is about 330 bytes with its key: at most a dozen fit in 4 KiB.
    expect(lines.size).toBeGreaterThan(0);
    expect(lines.size).toBeLessThanOrEqual(13);
  });
});
