import { clusterTrustBundleResource } from './index.js';
import { updateManagedFields } from './managed-fields.js';
import { allDefinitions } from './openapi/operations.js';
import { SchemaSet } from './schema-walk.js';

const def = clusterTrustBundleResource();
const schemas = new SchemaSet(allDefinitions([def]));
const opts = (manager: string) => ({ manager, apiVersion: 'certificates.plat.io/v1alpha1', now: '2026-01-01T00:00:00Z', schema: schemas.get(def.definitionName)!, schemas });

describe('managedFields for Update operations', () => {
  const created = {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name: 'x', uid: 'u', labels: { a: '1' }, finalizers: ['f/1'] },
    spec: { trustBundle: 'pem' },
  };

  it('gives the creator every set field, maps and sets owning their own node', () => {
    expect(updateManagedFields(created, undefined, [], opts('creator'))).toEqual([
      {
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'certificates.plat.io/v1alpha1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:finalizers': { '.': {}, 'v:"f/1"': {} }, 'f:labels': { '.': {}, 'f:a': {} } },
          'f:spec': { 'f:trustBundle': {} },
        },
      },
    ]);
  });

  it('moves changed fields to the updating manager and drops removed ones', () => {
    const first = updateManagedFields(created, undefined, [], opts('creator'));
    const next = { ...created, metadata: { ...created.metadata, labels: { a: '2' }, finalizers: [] }, spec: { trustBundle: 'pem' } };
    const entries = updateManagedFields(next, created, first, { ...opts('editor'), now: '2026-01-02T00:00:00Z' });
    expect(entries).toEqual([
      expect.objectContaining({
        manager: 'creator',
        fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {} }, 'f:labels': { '.': {} } }, 'f:spec': { 'f:trustBundle': {} } },
      }),
      expect.objectContaining({ manager: 'editor', time: '2026-01-02T00:00:00Z', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } }),
    ]);
  });

  it('changes nothing (not even the time) for an update that changes nothing', () => {
    const first = updateManagedFields(created, undefined, [], opts('creator'));
    expect(updateManagedFields(created, created, first, { ...opts('creator'), now: 'later' })).toEqual(first);
  });
});
