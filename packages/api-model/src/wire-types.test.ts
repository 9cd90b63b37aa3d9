import { clusterTrustBundleListSchema, clusterTrustBundleSchema } from './cluster-trust-bundle.js';
import { newTable, tableSchema, validateTableOptions } from './table.js';
import { watchBookmarkEvent, watchErrorEvent, watchEventSchema, watchEventSchemaOf } from './watch-event.js';
import { newResourceExpired } from './status.js';

const ctb = {
  apiVersion: 'certificates.plat.io/v1alpha1',
  kind: 'ClusterTrustBundle',
  metadata: { name: 'example.com:s:b', resourceVersion: '3' },
  spec: { signerName: 'example.com/s', trustBundle: '-----BEGIN CERTIFICATE-----\n...' },
};

describe('ClusterTrustBundle wire types', () => {
  it('parses an object and a list', () => {
    expect(clusterTrustBundleSchema.parse(ctb)).toEqual(ctb);
    const list = clusterTrustBundleListSchema.parse({
      apiVersion: 'certificates.plat.io/v1alpha1',
      kind: 'ClusterTrustBundleList',
      metadata: { resourceVersion: '9', continue: 'abc', remainingItemCount: 4 },
      items: [ctb],
    });
    expect(list.items).toHaveLength(1);
  });

  it('requires spec.trustBundle as a string', () => {
    expect(clusterTrustBundleSchema.safeParse({ ...ctb, spec: { signerName: 'a/b' } }).success).toBe(false);
    expect(clusterTrustBundleSchema.safeParse({ ...ctb, spec: { trustBundle: 7 } }).success).toBe(false);
    expect(clusterTrustBundleSchema.safeParse({ metadata: { name: 'x' } }).success).toBe(false);
  });
});

describe('watch events', () => {
  it('parses events of any object and of a typed object', () => {
    expect(watchEventSchema.parse({ type: 'ADDED', object: ctb }).type).toBe('ADDED');
    expect(watchEventSchema.safeParse({ type: 'CHANGED', object: ctb }).success).toBe(false);
    const typed = watchEventSchemaOf(clusterTrustBundleSchema);
    expect(typed.safeParse({ type: 'MODIFIED', object: ctb }).success).toBe(true);
    expect(typed.safeParse({ type: 'MODIFIED', object: { kind: 'Other' } }).success).toBe(false);
    expect(typed.safeParse({ type: 'ERROR', object: newResourceExpired('too old resource version: 1 (5)').status }).success).toBe(true);
  });

  it('builds error and bookmark events', () => {
    const err = watchErrorEvent(newResourceExpired('too old resource version: 1 (5)').status);
    expect(err).toEqual({ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) });
    expect(watchBookmarkEvent('certificates.plat.io/v1alpha1', 'ClusterTrustBundle', '42')).toEqual({
      type: 'BOOKMARK',
      object: { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { resourceVersion: '42' } },
    });
  });
});

describe('Table', () => {
  it('builds a table kubectl can print', () => {
    const table = newTable(
      [
        { name: 'Name', type: 'string', format: 'name', description: 'Name of the object', priority: 0 },
        { name: 'SignerName', type: 'string', format: '', description: 'The associated signer, if any.', priority: 0 },
      ],
      [{ cells: ['example.com:s:b', 'example.com/s'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'example.com:s:b' } } }],
      { resourceVersion: '9' },
    );
    expect(tableSchema.parse(table)).toEqual(table);
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.kind).toBe('Table');
  });

  it('validates includeObject', () => {
    for (const v of ['', 'None', 'Metadata', 'Object']) expect(validateTableOptions({ includeObject: v })).toEqual([]);
    expect(validateTableOptions({ includeObject: 'All' }).map(String)).toEqual([
      "includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty",
    ]);
  });
});
