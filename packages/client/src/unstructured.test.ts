import { ClientError } from './client-error.js';
import { aggregate, decodeUnstructured, decodeUnstructuredValue } from './unstructured.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('decodeUnstructuredValue (UnstructuredJSONScheme)', () => {
  it('refuses what is not an object, and an object without a kind, in the library\'s words', () => {
    expect(() => decodeUnstructuredValue([1], '[1]')).toThrow('json: cannot unmarshal array into Go value of type unstructured.detector');
    expect(() => decodeUnstructuredValue('x', '"x"')).toThrow('json: cannot unmarshal string into Go value of type unstructured.detector');
    expect(() => decodeUnstructuredValue({ kind: 3 }, '{"kind":3}')).toThrow(`Object 'Kind' is missing in '{"kind":3}'`);
    expect(() => decodeUnstructuredValue({ apiVersion: 'a/b/c', kind: 'X' }, 'raw')).toThrow(`Object 'Kind' is missing in 'raw'`);
  });

  it('gives list items without kind and apiVersion those of the list', () => {
    const { items } = decodeUnstructuredValue({ apiVersion: 'v1', kind: 'ConfigMapList', items: [{ metadata: { name: 'a' } }, cm('b')] }, '');
    expect(items).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, cm('b')]);
    expect(() => decodeUnstructuredValue({ kind: 'List', items: {} }, '')).toThrow('json: cannot unmarshal object into Go struct field decodeList.items of type []json.RawMessage');
    expect(() => decodeUnstructuredValue({ kind: 'List', items: [3] }, '')).toThrow('json: cannot unmarshal number into Go value of type map[string]interface {}');
  });
});

describe('decodeUnstructured (with kubectl\'s Flatten)', () => {
  it('returns a List as its items; items that cannot be typed are left out and reported together', () => {
    const doc = decodeUnstructured({ apiVersion: 'v1', kind: 'List', items: [{ kind: 'ConfigMap' }, cm('a'), { apiVersion: 'v1' }] }, '');
    expect(doc.objects).toEqual([cm('a')]);
    expect(doc.itemErrors?.errors.map((e: Error) => e.message)).toEqual([
      `unable to get type info from the object "*unstructured.Unstructured": Object 'apiVersion' is missing in 'object has no apiVersion field'`,
      `unable to get type info from the object "*unstructured.Unstructured": Object 'Kind' is missing in 'object has no kind field '`,
    ]);
  });

  it('refuses a List holding a list', () => {
    expect(() => decodeUnstructured({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'List', items: [] }] }, '')).toThrow(
      new ClientError('FlattenFailed', '*unstructured.Unstructured is not a list: no Items field in this object'),
    );
  });
});

describe('aggregate (utilerrors.Aggregate)', () => {
  it('reads as its only error, or as the distinct messages in brackets, nested aggregates flattened', () => {
    expect(aggregate([new Error('a')]).message).toBe('a');
    expect(aggregate([new Error('a'), aggregate([new Error('b'), new Error('a')]), new Error('c')]).message).toBe('[a, b, c]');
  });
});
