import { metadataTypeError } from './metadata-validation.js';

const cm = (metadata: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...extra });

describe('metadataTypeError (kubectl\'s metadataValidatingDecoder)', () => {
  it('accepts well-typed metadata, nulls and fields it does not know', () => {
    expect(metadataTypeError(cm({ name: 'a', labels: { a: 'b', n: null }, generation: 2, ownerReferences: [{ uid: 'u', controller: true }], managedFields: [{ fieldsV1: { 'f:a': {} }, time: '2024-01-01T00:00:00Z' }], other: 1 }))).toBeUndefined();
    expect(metadataTypeError(cm({ name: 'a', Labels: { x: 2 } }))).toBeUndefined();
  });

  it('words type errors as Go\'s encoding/json does, naming the struct and the JSON path', () => {
    expect(metadataTypeError(cm({ name: 'a', labels: { x: true } }))).toBe('json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string');
    expect(metadataTypeError(cm({ name: 3 }))).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
    expect(metadataTypeError(cm({ ownerReferences: [{ uid: 5 }] }))).toBe('json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID');
    expect(metadataTypeError(cm({ ownerReferences: [1] }))).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference');
    expect(metadataTypeError(cm({ generation: 1.5 }))).toBe('json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64');
    expect(metadataTypeError(cm('x'))).toBe('json: cannot unmarshal string into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta');
    expect(metadataTypeError({ apiVersion: 3, kind: 'X' })).toBe('json: cannot unmarshal number into Go struct field metadataOnlyObject.apiVersion of type string');
  });

  it('keeps the first type error, but a timestamp that is not a string ends decoding and wins', () => {
    expect(metadataTypeError(cm({ name: 1, namespace: 2 }))).toMatch(/metadata\.name of type string$/);
    expect(metadataTypeError(cm({ labels: { x: 1 }, creationTimestamp: 5 }))).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string');
    expect(metadataTypeError(cm({ managedFields: [{ time: 3 }] }))).toBe('json: cannot unmarshal number into Go struct field ManagedFieldsEntry.metadata.managedFields.time of type string');
  });
});
