import { nameIsDNSSubdomain } from './name-validation.js';
import {
  validateAnnotations,
  validateFieldManager,
  validateFinalizers,
  validateManagedFields,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from './object-meta-validation.js';
import type { ObjectMeta } from './object-meta.js';

const clusterScoped = { namespaced: false, nameFn: nameIsDNSSubdomain };
const namespaced = { namespaced: true, nameFn: nameIsDNSSubdomain };
const create = (meta: ObjectMeta | undefined, opts = clusterScoped) => validateObjectMeta(meta, opts).map(String);

describe('validateObjectMeta', () => {
  it('accepts a plain named object', () => {
    expect(create({ name: 'a', labels: { app: 'x' }, annotations: { 'example.com/Note': 'anything at all' }, finalizers: ['example.com/f'] })).toEqual([]);
  });

  it('requires a name or generateName', () => {
    expect(create({})).toEqual(['metadata.name: Required value: name or generateName is required']);
    expect(create(undefined)).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('checks generateName as a prefix', () => {
    expect(create({ generateName: 'web-', name: 'web-abcde' })).toEqual([]);
    expect(create({ generateName: 'Web-', name: 'web-abcde' })[0]).toMatch(/^metadata\.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain/);
  });

  it('handles the namespace per scope', () => {
    expect(create({ name: 'a', namespace: 'ns' })).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
    expect(create({ name: 'a' }, namespaced)).toEqual(['metadata.namespace: Required value']);
    expect(create({ name: 'a', namespace: 'ns.x' }, namespaced)).toEqual(['metadata.namespace: Invalid value: "ns.x": must not contain dots']);
    expect(create({ name: 'a', namespace: 'ns' }, namespaced)).toEqual([]);
  });

  it('rejects a negative generation', () => {
    expect(create({ name: 'a', generation: -1 })).toEqual(['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('checks finalizers as qualified names and standard names', () => {
    expect(create({ name: 'a', finalizers: ['kubernetes', 'orphan'] })).toEqual([]);
    expect(create({ name: 'a', finalizers: ['custom'] })).toEqual([
      'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    expect(create({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] })).toEqual([
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
    expect(validateFinalizers(['a/b/c'], 'f').map(String)[0]).toMatch(/^f: Invalid value: "a\/b\/c": a valid label key must consist/);
  });
});

describe('metadata parts', () => {
  it('limits annotations to 256 KiB in total and checks keys case-insensitively', () => {
    expect(validateAnnotations({ 'Example.COM/Key': 'v' }, 'a')).toEqual([]);
    expect(validateAnnotations({ k: 'v'.repeat(256 * 1024) }, 'a').map(String)).toEqual(['a: Too long: may not be more than 262144 bytes']);
    expect(validateAnnotations({ k: 'v'.repeat(256 * 1024 - 1) }, 'a')).toEqual([]);
    expect(validateAnnotations({ 'bad key': '' }, 'a').map(String)[0]).toMatch(/^a: Invalid value: "bad key": name part must consist/);
  });

  it('checks owner references', () => {
    expect(
      validateOwnerReferences([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u' }], 'o'),
    ).toEqual([]);
    expect(validateOwnerReferences([{ apiVersion: 'g/', kind: '', name: '', uid: '' }], 'o').map(String)).toEqual([
      'o.apiVersion: Invalid value: "g/": version must not be empty',
      'o.kind: Invalid value: "": must not be empty',
      'o.name: Invalid value: "": must not be empty',
      'o.uid: Invalid value: "": must not be empty',
    ]);
    const two = [
      { apiVersion: 'apps/v1', kind: 'A', name: 'a', uid: '1', controller: true },
      { apiVersion: 'apps/v1', kind: 'B', name: 'b', uid: '2', controller: true },
    ];
    expect(validateOwnerReferences(two, 'o').map((e) => e.detail)).toEqual([
      'Only one reference can have Controller set to true. Found "true" in references for A/a and B/b',
    ]);
  });

  it('checks managed fields entries', () => {
    expect(validateManagedFields([{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' }], 'm')).toEqual([]);
    expect(validateManagedFields([{ manager: 'x\u0007', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) }], 'm').map(String)).toEqual([
      'm[0].operation: Invalid value: "": must be `Apply` or `Update`',
      'm[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'm[0].manager: Invalid value: "x\\a": invalid character U+0007 (at position 1)',
      'm[0].subresource: Too long: may not be more than 256 bytes',
    ]);
  });

  it('limits a field manager to 128 bytes', () => {
    expect(validateFieldManager('m'.repeat(128), 'f')).toEqual([]);
    expect(validateFieldManager('m'.repeat(129), 'f').map(String)).toEqual(['f: Too long: may not be more than 128 bytes']);
    expect(validateFieldManager('ünïcode ok', 'f')).toEqual([]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2026-01-02T03:04:05Z',
    finalizers: ['example.com/keep'],
  };

  it('accepts an update that keeps the immutable fields', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { a: 'b' }, generation: 3 }, old)).toEqual([]);
  });

  it('compares timestamps by instant', () => {
    expect(validateObjectMetaUpdate({ ...old, creationTimestamp: '2026-01-02T04:04:05+01:00' }, old)).toEqual([]);
  });

  it('reports each immutable field that changed', () => {
    const next: ObjectMeta = {
      ...old,
      name: 'b',
      namespace: 'ns',
      uid: 'u2',
      resourceVersion: '',
      generation: 1,
      creationTimestamp: undefined,
      deletionTimestamp: '2026-03-01T00:00:00Z',
      deletionGracePeriodSeconds: 30,
    };
    expect(validateObjectMetaUpdate(next, old).map(String)).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "ns": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionTimestamp: Invalid value: 2026-03-01 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  it('forbids new finalizers once deletion started', () => {
    const deleting = { ...old, deletionTimestamp: '2026-03-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: ['example.com/keep', 'example.com/z', 'example.com/a'] }, deleting).map(String)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/a", "example.com/z"}',
    ]);
  });

  it('still checks labels and finalizer names', () => {
    expect(validateObjectMetaUpdate({ ...old, finalizers: ['custom'] }, old).map(String)).toEqual([
      'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});
