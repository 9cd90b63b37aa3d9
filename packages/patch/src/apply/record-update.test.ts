import { readFileSync } from 'node:fs';
import type { ManagedFieldsEntry } from '@plat/api-model';
import { TEST_API_VERSION, entries, ownersOf, testType, widget } from '../../test/apply/test-schema.js';
import { apply, newApplyConflictError } from './apply.js';
import { recordUpdate } from './record-update.js';

const T0 = '2026-11-22T06:00:00Z';
const T1 = '2026-11-22T06:30:00Z';
const T2 = '2026-11-22T07:00:00Z';

const base = { apiVersion: TEST_API_VERSION, schema: testType };

function withMeta(obj: Record<string, unknown>, meta: Record<string, unknown>): Record<string, unknown> {
  return { ...obj, metadata: { ...(obj.metadata as object), ...meta } };
}

describe('recordUpdate', () => {
  it('a create gives the creator every field it set, with "." for maps and lists it added', () => {
    const after = withMeta(widget({ a: 1, m: { x: '1' }, s: ['p'], ml: [{ name: 'n', value: 'v' }], al: [1] }), {
      labels: { team: 'x' },
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: T0,
      generation: 1,
    });
    const r = recordUpdate({ ...base, after, manager: 'clientctl-create', now: T0 });
    expect(r.managedFields).toEqual([
      {
        manager: 'clientctl-create',
        operation: 'Update',
        apiVersion: TEST_API_VERSION,
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
          'f:spec': {
            'f:a': {},
            'f:al': {},
            'f:m': { '.': {}, 'f:x': {} },
            'f:ml': { '.': {}, 'k:{"name":"n"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
            'f:s': { '.': {}, 'v:"p"': {} },
          },
        },
      },
    ]);
    expect((r.object.metadata as { managedFields: unknown }).managedFields).toEqual(r.managedFields);
  });

  it('an update takes the changed fields from their previous owner', () => {
    const before = widget({ a: 1, b: 2 }, entries({ 'creator@Update': { 'f:spec': { 'f:a': {}, 'f:b': {} } } }, T0));
    const after = widget({ a: 5, b: 2 }, (before.metadata as { managedFields: ManagedFieldsEntry[] }).managedFields);
    const r = recordUpdate({ ...base, before, after, manager: 'clientctl-patch', now: T1 });
    expect(ownersOf(r.managedFields)).toEqual({ 'creator@Update': ['.spec.b'], 'clientctl-patch@Update': ['.spec.a'] });
    expect(r.managedFields.map((e) => e.time)).toEqual([T0, T1]);
  });

  it('an update also takes fields from an applier, which then conflicts no more', () => {
    const applied = apply({ applied: widget({ a: 1 }), manager: 'kubectl', apiVersion: TEST_API_VERSION, now: T0, schema: testType });
    const r = recordUpdate({ ...base, before: applied.object, after: { ...applied.object, spec: { a: 2 } }, manager: 'clientctl-patch', now: T1 });
    expect(ownersOf(r.managedFields)).toEqual({ 'clientctl-patch@Update': ['.spec.a'] });
    const reapply = apply({ live: r.object, applied: widget({ a: 1 }), manager: 'kubectl', apiVersion: TEST_API_VERSION, now: T2, schema: testType });
    expect(reapply.conflicts.map((c) => c.manager)).toEqual(['clientctl-patch']);
  });

  it('removed fields leave every entry, and empty entries go', () => {
    const before = widget(
      { a: 1, m: { x: '1', y: '2' } },
      entries({ A: { 'f:spec': { 'f:m': { 'f:x': {} } } }, 'B@Update': { 'f:spec': { 'f:a': {}, 'f:m': { 'f:y': {} } } } }, T0),
    );
    const after = { ...before, spec: { a: 1, m: { y: '2' } } };
    const r = recordUpdate({ ...base, before, after, manager: 'C', now: T1 });
    expect(ownersOf(r.managedFields)).toEqual({ 'B@Update': ['.spec.a', '.spec.m.y'] });
  });

  it('merges repeated updates of one manager into one entry and restamps it', () => {
    const before = widget({ a: 1 }, entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0));
    const r = recordUpdate({ ...base, before, after: { ...before, spec: { a: 1, b: 2 } }, manager: 'M', now: T1 });
    expect(r.managedFields).toHaveLength(1);
    expect(ownersOf(r.managedFields)).toEqual({ 'M@Update': ['.spec.a', '.spec.b'] });
    expect(r.managedFields[0].time).toBe(T1);
  });

  it('an update that changes nothing leaves the entries as they were', () => {
    const before = widget({ a: 1 }, entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0));
    const r = recordUpdate({ ...base, before, after: structuredClone(before), manager: 'other', now: T1 });
    expect(r.managedFields).toEqual((before.metadata as { managedFields: unknown }).managedFields);
  });

  it('keeps separate entries per apiVersion and per subresource', () => {
    const before = widget({ a: 1 }, entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0));
    const v2 = recordUpdate({ ...base, apiVersion: 'test.plat.io/v2', before, after: { ...before, spec: { a: 1, b: 2 } }, manager: 'M', now: T1 });
    expect(v2.managedFields.map((e) => e.apiVersion)).toEqual([TEST_API_VERSION, 'test.plat.io/v2']);
    const status = recordUpdate({ ...base, subresource: 'status', before, after: { ...before, status: { phase: 'Ready' } }, manager: 'M', now: T1 });
    expect(status.managedFields.map((e) => [e.manager, e.subresource, Object.keys(e.fieldsV1!)])).toEqual([
      ['M', undefined, ['f:spec']],
      ['M', 'status', ['f:status']],
    ]);
  });

  it('uses the managedFields a client sends, and keeps the stored ones when it sends none or garbage', () => {
    const stored = entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0);
    const before = widget({ a: 1 }, stored);
    const sent = entries({ 'N@Update': { 'f:spec': { 'f:a': {} } } }, T0);
    expect(ownersOf(recordUpdate({ ...base, before, after: widget({ a: 1 }, sent), manager: 'x', now: T1 }).managedFields)).toEqual({
      'N@Update': ['.spec.a'],
    });
    expect(ownersOf(recordUpdate({ ...base, before, after: widget({ a: 1 }), manager: 'x', now: T1 }).managedFields)).toEqual({
      'M@Update': ['.spec.a'],
    });
    const garbage = [{ manager: 'N', operation: 'Nope', apiVersion: 'v', fieldsType: 'FieldsV1' }] as unknown as ManagedFieldsEntry[];
    expect(ownersOf(recordUpdate({ ...base, before, after: widget({ a: 1 }, garbage), manager: 'x', now: T1 }).managedFields)).toEqual({
      'M@Update': ['.spec.a'],
    });
  });

  it('an entry with any value set is not a reset', async () => {
    const { isResetManagedFields } = await import('./managed-fields.js');
    expect(isResetManagedFields([{ manager: 'x' }])).toBe(false);
    expect(isResetManagedFields([{ fieldsV1: {} }])).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
    expect(isResetManagedFields(undefined)).toBe(false);
    expect(isResetManagedFields(null)).toBe(false);
  });

  it('starts from the entries the caller passes, when it passes some', () => {
    const before = widget({ a: 1 }, entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0));
    const r = recordUpdate({
      ...base,
      before,
      after: { ...before, spec: { a: 1, b: 2 } },
      managedFields: entries({ 'N@Update': { 'f:spec': { 'f:a': {} } } }, T0),
      manager: 'x',
      now: T1,
    });
    expect(ownersOf(r.managedFields)).toEqual({ 'N@Update': ['.spec.a'], 'x@Update': ['.spec.b'] });
  });

  it('ignores managedFields sent to a subresource', () => {
    const before = widget({ a: 1 }, entries({ 'M@Update': { 'f:spec': { 'f:a': {} } } }, T0));
    const r = recordUpdate({ ...base, subresource: 'status', before, after: widget({ a: 1 }, []), manager: 'x', now: T1 });
    expect(ownersOf(r.managedFields)).toEqual({ 'M@Update': ['.spec.a'] });
  });

  it.each([
    ['an empty list', []],
    ['a list of one empty entry', [{}]],
    ['a list of one entry with only empty values', [{ manager: '', fieldsV1: null }]],
  ])('resets tracking when the request sets managedFields to %s', (_name, reset) => {
    const before = widget({ a: 1 }, entries({ A: { 'f:spec': { 'f:a': {} } } }, T0));
    const r = recordUpdate({ ...base, before, after: widget({ a: 2 }, reset as ManagedFieldsEntry[]), manager: 'x', now: T1 });
    expect(r.managedFields).toEqual([]);
    expect(r.object.metadata).toEqual({ name: 'w' });
    // The object stays untracked by further updates...
    const next = recordUpdate({ ...base, before: r.object, after: widget({ a: 3 }), manager: 'y', now: T2 });
    expect(next.managedFields).toEqual([]);
    // ...until it is applied to, when before-first-apply takes what is there.
    const applied = apply({ live: next.object, applied: widget({ b: 1 }), manager: 'A', apiVersion: TEST_API_VERSION, now: T2, schema: testType });
    expect(ownersOf(applied.managedFields)).toEqual({ A: ['.spec.b'], 'before-first-apply@Update': ['.spec.a'] });
  });

  it('folds the oldest Update entries into ancient-changes past ten', () => {
    let obj: Record<string, unknown> | undefined;
    for (let i = 0; i < 12; i++) {
      const after = widget({ m: { ...(((obj?.spec as { m?: object })?.m) ?? {}), [`k${i}`]: 'v' } }, obj ? (obj.metadata as { managedFields: ManagedFieldsEntry[] }).managedFields : undefined);
      obj = recordUpdate({ ...base, before: obj, after, manager: `mgr-${String(i).padStart(2, '0')}`, now: new Date(Date.parse(T0) + i * 1000) }).object;
    }
    const managed = (obj!.metadata as { managedFields: ManagedFieldsEntry[] }).managedFields;
    expect(managed).toHaveLength(10);
    expect(managed[0].manager).toBe('ancient-changes');
    expect(managed[0].time).toBe('2026-11-22T06:00:02Z');
    expect(ownersOf([managed[0]])['ancient-changes@Update']).toEqual(['.spec.m', '.spec.m.k0', '.spec.m.k1', '.spec.m.k2']);
    expect(managed.slice(1).map((e) => e.manager)).toEqual(['mgr-03', 'mgr-04', 'mgr-05', 'mgr-06', 'mgr-07', 'mgr-08', 'mgr-09', 'mgr-10', 'mgr-11']);
  });

  it('never fails: stored entries it cannot read are dropped', () => {
    const before = widget({ a: 1 }, [{ manager: 'x', operation: 'Apply', apiVersion: TEST_API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'q:1': {} } }]);
    const r = recordUpdate({ ...base, before, after: widget({ a: 2 }), manager: 'y', now: T1 });
    expect(r.managedFields).toEqual([]);
  });
});

interface DeploymentFixture {
  emptyObject: Record<string, unknown>;
  created: Record<string, unknown>;
  managedFields: ManagedFieldsEntry[];
  serverSideApplied: { applied: Record<string, unknown>; entry: ManagedFieldsEntry };
}

const deployment = JSON.parse(
  readFileSync(new URL('../../test/apply/deployment-nginx.json', import.meta.url), 'utf8'),
) as DeploymentFixture;

describe('Kubernetes fixtures: a Deployment', () => {
  it('records `kubectl create deployment` exactly as kube-apiserver does', () => {
    const r = recordUpdate({
      after: deployment.created,
      emptyObject: deployment.emptyObject,
      manager: 'kubectl-create',
      apiVersion: 'apps/v1',
      now: deployment.managedFields[0].time!,
    });
    expect(JSON.stringify(r.managedFields)).toBe(
      JSON.stringify([reorder(deployment.managedFields[0])]),
    );
  });

  it('records `kubectl apply --server-side` exactly as kube-apiserver does', () => {
    const r = apply({
      applied: deployment.serverSideApplied.applied,
      manager: 'kubectl',
      apiVersion: 'apps/v1',
      now: deployment.serverSideApplied.entry.time!,
    });
    expect(JSON.stringify(r.managedFields)).toBe(JSON.stringify([reorder(deployment.serverSideApplied.entry)]));
  });

  it('a controller changing the image conflicts with the applier at the container\'s image', () => {
    const first = apply({ applied: deployment.serverSideApplied.applied, manager: 'kubectl', apiVersion: 'apps/v1', now: T0 });
    const changed = structuredClone(deployment.serverSideApplied.applied) as { spec: { template: { spec: { containers: { image: string }[] } } } };
    changed.spec.template.spec.containers[0].image = 'nginx:1.28';
    const r = apply({ live: first.object, applied: changed, manager: 'rollout', apiVersion: 'apps/v1', now: T1 });
    expect(newApplyConflictError(r.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.template.spec.containers[name="web"].image',
    );
  });
});

/** The fixture's entries in metav1's member order (kubectl prints them alphabetically). */
function reorder(e: ManagedFieldsEntry): ManagedFieldsEntry {
  const out: ManagedFieldsEntry = {};
  for (const k of ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'] as const) {
    if (e[k] !== undefined) (out as Record<string, unknown>)[k] = e[k];
  }
  return out;
}
