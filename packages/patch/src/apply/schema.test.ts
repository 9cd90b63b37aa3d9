import { ownersOf } from '../../test/apply/test-schema.js';
import { apply, newApplyConflictError } from './apply.js';
import { recordUpdate } from './record-update.js';
import { applyTypeForKind, type ApplyType, type StructType } from './schema.js';

const CTB_VERSION = 'certificates.plat.io/v1alpha1';
const T0 = '2026-11-22T06:00:00Z';
const T1 = '2026-11-22T06:30:00Z';

function at(t: ApplyType, ...fields: string[]): ApplyType {
  let cur = t;
  for (const f of fields) {
    if (cur.kind === 'struct') cur = cur.field(f)!;
    else if (cur.kind === 'list') cur = cur.item;
    else if (cur.kind === 'map') cur = cur.value;
    if (!cur) throw new Error(`no field ${f}`);
  }
  return cur;
}

describe('schemas', () => {
  const ctb = applyTypeForKind(CTB_VERSION, 'ClusterTrustBundle') as StructType;

  it('ClusterTrustBundle: scalars under spec and Kubernetes ObjectMeta', () => {
    expect(ctb.kind).toBe('struct');
    expect(at(ctb, 'spec', 'trustBundle')).toEqual({ kind: 'leaf' });
    expect(at(ctb, 'spec', 'signerName')).toEqual({ kind: 'leaf' });
    expect(at(ctb, 'spec')).toMatchObject({ kind: 'struct', atomic: false });
    expect(at(ctb, 'metadata', 'labels')).toMatchObject({ kind: 'map', atomic: false });
    expect(at(ctb, 'metadata', 'annotations')).toMatchObject({ kind: 'map', atomic: false });
    expect(at(ctb, 'metadata', 'finalizers')).toMatchObject({ kind: 'list', listType: 'set' });
    expect(at(ctb, 'metadata', 'ownerReferences')).toMatchObject({ kind: 'list', listType: 'map', keys: ['uid'] });
    expect(at(ctb, 'metadata', 'ownerReferences', 'item')).toMatchObject({ kind: 'struct', atomic: true });
    expect(at(ctb, 'metadata', 'managedFields')).toMatchObject({ kind: 'list', listType: 'atomic' });
    expect(ctb.field('status')).toBeUndefined();
  });

  it('built-in kinds keep list types, map keys and atomic structs from the OpenAPI', () => {
    const d = applyTypeForKind('apps/v1', 'Deployment');
    expect(at(d, 'spec', 'selector')).toMatchObject({ kind: 'struct', atomic: true });
    expect(at(d, 'spec', 'template', 'spec', 'containers')).toMatchObject({ kind: 'list', listType: 'map', keys: ['name'] });
    expect(at(d, 'spec', 'template', 'spec', 'containers', 'item', 'ports')).toMatchObject({
      listType: 'map',
      keys: ['containerPort', 'protocol'],
    });
    expect(at(d, 'spec', 'template', 'spec', 'containers', 'item', 'args')).toMatchObject({ listType: 'atomic' });
    expect(at(d, 'spec', 'template', 'spec', 'containers', 'item', 'resources', 'limits')).toMatchObject({ kind: 'map' });
    expect(at(d, 'spec', 'template', 'spec', 'containers', 'item', 'resources', 'limits', 'cpu')).toEqual({ kind: 'leaf' });
    expect(at(applyTypeForKind('v1', 'Service'), 'spec', 'selector')).toMatchObject({ kind: 'map', atomic: true });
  });

  it('kinds with no schema get the deduced type', () => {
    expect(applyTypeForKind('example.com/v1', 'Thing')).toEqual({ kind: 'deduced' });
  });
});

describe('ClusterTrustBundle', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  const PEM2 = '-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n';

  function ctb(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
    return { apiVersion: CTB_VERSION, kind: 'ClusterTrustBundle', metadata: { name: 'plat.io:ca:one', ...metadata }, spec };
  }

  it('a create, an apply with another bundle (409), then a forced apply', () => {
    const created = recordUpdate({
      after: ctb({ signerName: 'plat.io/ca', trustBundle: PEM }, { uid: 'u', resourceVersion: '1', creationTimestamp: T0 }),
      manager: 'clientctl-create',
      apiVersion: CTB_VERSION,
      now: T0,
    });
    expect(created.managedFields[0].fieldsV1).toEqual({ 'f:spec': { 'f:signerName': {}, 'f:trustBundle': {} } });

    const applied = ctb({ signerName: 'plat.io/ca', trustBundle: PEM2 });
    const refused = apply({ live: created.object, applied, manager: 'kubectl', apiVersion: CTB_VERSION, now: T1 });
    const err = newApplyConflictError(refused.conflicts);
    expect(err.status.message).toBe(
      'Apply failed with 1 conflict: conflict with "clientctl-create" using certificates.plat.io/v1alpha1: .spec.trustBundle',
    );
    expect(err.status.details?.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "clientctl-create" using certificates.plat.io/v1alpha1',
        field: '.spec.trustBundle',
      },
    ]);

    const forced = apply({ live: created.object, applied, manager: 'kubectl', force: true, apiVersion: CTB_VERSION, now: T1 });
    expect(forced.object.spec).toEqual({ signerName: 'plat.io/ca', trustBundle: PEM2 });
    expect(ownersOf(forced.managedFields)).toEqual({
      kubectl: ['.spec.signerName', '.spec.trustBundle'],
      'clientctl-create@Update': ['.spec.signerName'],
    });
    expect((forced.object.metadata as Record<string, unknown>).uid).toBe('u');
  });

  it('labels are owned key by key and removed when the applier drops them', () => {
    const first = apply({
      applied: ctb({ trustBundle: PEM }, { labels: { a: '1', b: '2' } }),
      manager: 'kubectl',
      apiVersion: CTB_VERSION,
      now: T0,
    });
    const labelled = recordUpdate({
      before: first.object,
      after: { ...first.object, metadata: { ...(first.object.metadata as object), labels: { a: '1', b: '2', c: '3' } } },
      manager: 'clientctl-label',
      apiVersion: CTB_VERSION,
      now: T1,
    });
    const second = apply({
      live: labelled.object,
      applied: ctb({ trustBundle: PEM }, { labels: { a: '1' } }),
      manager: 'kubectl',
      apiVersion: CTB_VERSION,
      now: T1,
    });
    expect((second.object.metadata as { labels: unknown }).labels).toEqual({ a: '1', c: '3' });
    expect(ownersOf(second.managedFields)).toEqual({
      kubectl: ['.metadata.labels.a', '.spec.trustBundle'],
      'clientctl-label@Update': ['.metadata.labels.c'],
    });
  });

  it('finalizers are a set and owner references are atomic items keyed by uid', () => {
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u1' };
    const first = apply({
      applied: ctb({ trustBundle: PEM }, { finalizers: ['plat.io/a'], ownerReferences: [owner] }),
      manager: 'A',
      apiVersion: CTB_VERSION,
      now: T0,
    });
    expect(first.managedFields[0].fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"plat.io/a"': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
      'f:spec': { 'f:trustBundle': {} },
    });
    const second = apply({
      live: first.object,
      applied: ctb({}, { finalizers: ['plat.io/b'], ownerReferences: [{ ...owner, name: 'other' }] }),
      manager: 'B',
      apiVersion: CTB_VERSION,
      now: T1,
    });
    expect(newApplyConflictError(second.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "A": .metadata.ownerReferences[uid="u1"]',
    );
    const third = apply({
      live: first.object,
      applied: ctb({}, { finalizers: ['plat.io/b'] }),
      manager: 'B',
      apiVersion: CTB_VERSION,
      now: T1,
    });
    expect((third.object.metadata as { finalizers: unknown }).finalizers).toEqual(['plat.io/a', 'plat.io/b']);
  });

  it('refuses a field the kind does not have', () => {
    expect(() =>
      apply({ applied: ctb({ trustBundle: PEM, extra: 1 }), manager: 'A', apiVersion: CTB_VERSION, now: T0 }),
    ).toThrow(
      'failed to create typed patch object (/plat.io:ca:one; certificates.plat.io/v1alpha1, Kind=ClusterTrustBundle): .spec.extra: field not declared in schema',
    );
  });
});

describe('the deduced type (no schema)', () => {
  it('owns maps key by key and lists as a whole', () => {
    const thing = (spec: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', labels: { x: 'y' } }, spec });
    const first = apply({ applied: thing({ list: [1, 2], obj: { a: 1 } }), manager: 'A', apiVersion: 'example.com/v1', now: T0 });
    expect(first.managedFields[0].fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
      'f:spec': { '.': {}, 'f:list': {}, 'f:obj': { '.': {}, 'f:a': {} } },
    });
    const second = apply({ live: first.object, applied: thing({ list: [3], obj: { b: 2 } }), manager: 'B', apiVersion: 'example.com/v1', now: T1 });
    expect(second.conflicts.map((c) => c.path.map((p) => ('field' in p ? p.field : '?')).join('.'))).toEqual(['spec.list']);
    const forced = apply({ live: first.object, applied: thing({ list: [3], obj: { b: 2 } }), manager: 'B', force: true, apiVersion: 'example.com/v1', now: T1 });
    expect(forced.object.spec).toEqual({ list: [3], obj: { a: 1, b: 2 } });
  });
});

describe('Kubernetes fixtures: the server-side apply documentation\'s ConfigMap', () => {
  it('owns data and label keys one by one, with no "." for containers the configuration sets', () => {
    const r = apply({
      applied: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } },
        data: { key: 'some value' },
      },
      manager: 'kubectl',
      apiVersion: 'v1',
      now: '2010-10-10T00:00:00Z',
    });
    expect(r.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2010-10-10T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
      },
    ]);
    const taken = apply({
      live: r.object,
      applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default' }, data: { key: 'new value' } },
      manager: 'controller',
      apiVersion: 'v1',
      now: '2010-10-10T00:00:01Z',
    });
    expect(newApplyConflictError(taken.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl": .data.key',
    );
  });
});

describe('Kubernetes fixtures: kubectl apply --server-side of a Service', () => {
  it('keys ports by port and protocol and owns the atomic selector as one field', () => {
    const r = apply({
      applied: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }, { port: 443, protocol: 'TCP', targetPort: 8443 }] },
      },
      manager: 'kubectl',
      apiVersion: 'v1',
      now: T0,
    });
    expect(JSON.stringify(r.managedFields[0].fieldsV1)).toBe(
      JSON.stringify({
        'f:spec': {
          'f:ports': {
            'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
            'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
          },
          'f:selector': {},
        },
      }),
    );
    const other = apply({
      live: r.object,
      applied: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web', tier: 'x' } } },
      manager: 'other',
      apiVersion: 'v1',
      now: T1,
    });
    expect(newApplyConflictError(other.conflicts).status.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.selector');
  });
});
