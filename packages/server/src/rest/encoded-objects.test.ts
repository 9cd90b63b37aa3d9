import fc from 'fast-check';
import type { ApiObject } from '@plat/api-model';
import { encodeBody } from '../response.js';
import { EncodedObjects, type EncodingView } from './encoded-objects.js';

/** A served form as a scope's: drops kind/apiVersion, and renames one field (a conversion). */
const view: EncodingView = {
  kind: 'ClusterTrustBundle',
  apiVersion: 'certificates.plat.io/v1beta1',
  servedItem: (stored) => {
    const { apiVersion: _a, kind: _k, ...rest } = stored;
    return rest;
  },
};

// Top-level keys as an object's are: no integer-like names (JSON.stringify puts those before
// `kind`; structural schemas prune every unknown top-level field, so no stored object has one).
const topKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !/^(0|[1-9][0-9]*)$/.test(k) && k !== 'kind' && k !== 'apiVersion' && k !== 'metadata');
const metadata = fc.record(
  {
    name: fc.string({ maxLength: 12 }),
    resourceVersion: fc.stringMatching(/^[1-9][0-9]{0,5}$/),
    labels: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
    annotations: fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 12 }), { maxKeys: 3 }),
  },
  { requiredKeys: ['resourceVersion'] },
);
const storedObject = fc.record({
  apiVersion: fc.constantFrom('certificates.plat.io/v1beta1', 'certificates.plat.io/v1alpha1'),
  kind: fc.constant('ClusterTrustBundle'),
  metadata,
  rest: fc.dictionary(topKey, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
});
const listMeta = fc.record({ resourceVersion: fc.stringMatching(/^[1-9][0-9]{0,5}$/), continue: fc.string({ maxLength: 10 }), remainingItemCount: fc.nat() }, { requiredKeys: ['resourceVersion'] });

/** Distinct objects get distinct uids (an object at a uid and resourceVersion has one content). */
function stored(samples: { apiVersion: string; kind: string; metadata: Record<string, unknown>; rest: Record<string, unknown> }[]): ApiObject[] {
  return samples.map((s, i) => ({ apiVersion: s.apiVersion, kind: s.kind, metadata: { ...s.metadata, uid: `uid-${i}` }, ...s.rest }) as ApiObject);
}

function listAsEncodedToday(items: readonly ApiObject[], meta: Record<string, unknown>): string {
  return encodeBody({ kind: 'ClusterTrustBundleList', apiVersion: view.apiVersion, metadata: meta, items: items.map((o) => view.servedItem(o)) }, 'json', false);
}

describe('EncodedObjects', () => {
  it('joins kept item encodings into the bytes of JSON.stringify of the whole list, cold and warm', () => {
    fc.assert(
      fc.property(fc.array(storedObject, { maxLength: 8 }), listMeta, (samples, meta) => {
        const items = stored(samples);
        const encodings = new EncodedObjects();
        const expected = listAsEncodedToday(items, meta);
        expect(encodings.list(view, 'ClusterTrustBundleList', meta, items).equals(Buffer.from(expected, 'utf8'))).toBe(true);
        expect(encodings.list(view, 'ClusterTrustBundleList', meta, items).toString('utf8')).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('answers a GET with the bytes of the object encoded with kind and apiVersion first', () => {
    fc.assert(
      fc.property(storedObject, (sample) => {
        const [obj] = stored([sample]);
        const encodings = new EncodedObjects();
        const expected = encodeBody({ kind: view.kind, apiVersion: view.apiVersion, ...view.servedItem(obj!) }, 'json', false);
        expect(encodings.object(view, obj!).toString('utf8')).toBe(expected);
        // Warm, and after the same object was encoded as a list item.
        encodings.list(view, 'ClusterTrustBundleList', { resourceVersion: '1' }, [obj!]);
        expect(encodings.object(view, obj!).toString('utf8')).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps each encoding in memory of its own, not in a slice of a pool block it would hold whole', () => {
    const [obj] = stored([{ apiVersion: view.apiVersion, kind: view.kind, metadata: { name: 'small', resourceVersion: '7' }, rest: {} }]);
    const encodings = new EncodedObjects();
    const item = encodings.item(view, obj!);
    const body = encodings.object(view, obj!);
    // A short Buffer.from() is a slice of Node's 8 KiB pool: its ArrayBuffer is the whole block.
    expect(Buffer.from('{}').buffer.byteLength).toBeGreaterThan(2);
    expect(item.buffer.byteLength).toBe(item.length);
    expect(body.buffer.byteLength).toBe(body.length);
  });

  it('encodes an object with nothing but its type as {"kind":..,"apiVersion":..}', () => {
    const encodings = new EncodedObjects();
    expect(encodings.object({ ...view, servedItem: () => ({}) }, { metadata: { uid: 'u', resourceVersion: '1' } }).toString('utf8')).toBe(
      '{"kind":"ClusterTrustBundle","apiVersion":"certificates.plat.io/v1beta1"}\n',
    );
  });

  it('keeps one encoding per served apiVersion, and none for an object without uid or resourceVersion', () => {
    const encodings = new EncodedObjects();
    const obj: ApiObject = { apiVersion: 'certificates.plat.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'a', uid: 'u1', resourceVersion: '7' } };
    const v1: EncodingView = { ...view, apiVersion: 'certificates.k8s.io/v1' };
    expect(encodings.object(view, obj).toString('utf8')).toContain('"apiVersion":"certificates.plat.io/v1beta1"');
    expect(encodings.object(v1, obj).toString('utf8')).toContain('"apiVersion":"certificates.k8s.io/v1"');
    expect(encodings.size).toBe(2);
    encodings.object(view, { metadata: { name: 'new', resourceVersion: '7' } });
    encodings.object(view, { metadata: { name: 'new', uid: 'u2' } });
    expect(encodings.size).toBe(2);
  });

  it('serves a new resourceVersion of the same object from its own encoding', () => {
    const encodings = new EncodedObjects();
    const at = (rv: string, value: string): ApiObject => ({ metadata: { name: 'a', uid: 'u', resourceVersion: rv }, spec: { value } });
    expect(encodings.object(view, at('1', 'old')).toString('utf8')).toContain('"old"');
    expect(encodings.object(view, at('2', 'new')).toString('utf8')).toContain('"new"');
    expect(encodings.object(view, at('1', 'ignored: same uid and resourceVersion')).toString('utf8')).toContain('"old"');
  });

  it('drops least recently used encodings past its bound of bytes (an entry counts twice its item: room for its GET form)', () => {
    const encodings = new EncodedObjects(20_000);
    const big = (i: number): ApiObject => ({ metadata: { name: `o${i}`, uid: `u${i}`, resourceVersion: '1' }, spec: { pad: 'x'.repeat(1_000) } });
    for (let i = 0; i < 100; i++) expect(encodings.object(view, big(i)).toString('utf8')).toContain(`"o${i}"`);
    expect(encodings.size).toBeGreaterThan(0);
    expect(encodings.size).toBeLessThanOrEqual(10);
    // A single encoding larger than the bound is answered and not kept.
    expect(new EncodedObjects(100).object(view, big(0)).toString('utf8')).toContain('"o0"');
  });
});

describe('EncodedObjects with frozen stored objects', () => {
  it('answers a frozen object from its own encoding, and a new revision from a new one', () => {
    const encodings = new EncodedObjects();
    const frozen = (rv: string, value: string): ApiObject => Object.freeze({ metadata: Object.freeze({ name: 'a', uid: 'u', resourceVersion: rv }), spec: Object.freeze({ value }) });
    const first = frozen('1', 'one');
    expect(encodings.object(view, first).toString('utf8')).toContain('"one"');
    expect(encodings.object(view, first)).toBe(encodings.object(view, first));
    expect(encodings.object(view, frozen('2', 'two')).toString('utf8')).toContain('"two"');
    expect(encodings.object({ ...view, apiVersion: 'certificates.k8s.io/v1' }, first).toString('utf8')).toContain('"apiVersion":"certificates.k8s.io/v1"');
  });

  it('answers each of two views alternating from its own encoding of the same frozen object', () => {
    const encodings = new EncodedObjects();
    const v1: EncodingView = { ...view, apiVersion: 'certificates.k8s.io/v1' };
    const obj: ApiObject = Object.freeze({ metadata: Object.freeze({ name: 'a', uid: 'u', resourceVersion: '1' }) });
    for (let i = 0; i < 3; i++) {
      expect(encodings.object(view, obj).toString('utf8')).toContain(`"apiVersion":"${view.apiVersion}"`);
      expect(encodings.object(v1, obj).toString('utf8')).toContain('"apiVersion":"certificates.k8s.io/v1"');
    }
  });
});
