import { StatusError } from '@plat/api-model';
import { TEST_API_VERSION, entries, ownersOf, testType, widget, type Owners } from '../../test/apply/test-schema.js';
import { apply, newApplyConflictError } from './apply.js';
import { FieldSet } from './fieldpath.js';

const NOW = '2026-11-22T07:00:00Z';

interface Row {
  name: string;
  live?: unknown; // spec of the live object; undefined: the apply creates it
  owners?: Owners;
  applied: unknown; // spec of the applied configuration
  manager: string;
  force?: boolean;
  result?: unknown; // spec after the apply (undefined: spec absent)
  resultOwners?: Record<string, string[]>;
  conflicts?: string[]; // `"manager" path`
}

function run(row: Row) {
  const live = row.live === undefined && !row.owners ? undefined : widget(row.live, row.owners ? entries(row.owners) : undefined);
  return apply({
    live,
    applied: widget(row.applied),
    manager: row.manager,
    force: row.force,
    apiVersion: TEST_API_VERSION,
    now: NOW,
    schema: testType,
  });
}

function check(row: Row): void {
  const r = run(row);
  expect(r.conflicts.map((c) => `"${c.manager}" ${c.path.map((p) => ('field' in p ? `.${p.field}` : JSON.stringify(p))).join('')}`)).toEqual(
    row.conflicts ?? [],
  );
  if (row.conflicts?.length) {
    expect(r.changed).toBe(false);
    return;
  }
  expect(r.object.spec).toEqual(row.result);
  if (row.resultOwners) expect(ownersOf(r.managedFields)).toEqual(row.resultOwners);
}

const tables: Record<string, Row[]> = {
  maps: [
    {
      name: 'creates the object and owns what it applied',
      applied: { a: 1, m: { x: '1' } },
      manager: 'A',
      result: { a: 1, m: { x: '1' } },
      resultOwners: { A: ['.spec.a', '.spec.m.x'] },
    },
    {
      name: 'a second manager adds a field beside the first',
      live: { a: 1 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { b: 2 },
      manager: 'B',
      result: { a: 1, b: 2 },
      resultOwners: { A: ['.spec.a'], B: ['.spec.b'] },
    },
    {
      name: 'a different value for a field another applier owns conflicts',
      live: { a: 1 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { a: 2 },
      manager: 'B',
      conflicts: ['"A" .spec.a'],
    },
    {
      name: 'force takes the field, and the loser with nothing left disappears',
      live: { a: 1 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { a: 2 },
      manager: 'B',
      force: true,
      result: { a: 2 },
      resultOwners: { B: ['.spec.a'] },
    },
    {
      name: 'force takes only the conflicting fields',
      live: { a: 1, b: 1 },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:b': {} } } },
      applied: { a: 2 },
      manager: 'B',
      force: true,
      result: { a: 2, b: 1 },
      resultOwners: { B: ['.spec.a'], A: ['.spec.b'] },
    },
    {
      name: 'the same value is owned by both managers',
      live: { a: 1 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { a: 1 },
      manager: 'B',
      result: { a: 1 },
      resultOwners: { A: ['.spec.a'], B: ['.spec.a'] },
    },
    {
      name: 'a field the manager stops applying is removed',
      live: { a: 1, b: 2 },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:b': {} } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1 },
      resultOwners: { A: ['.spec.a'] },
    },
    {
      name: 'a field the manager stops applying stays when another manager owns it too',
      live: { a: 1, b: 2 },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:b': {} } }, B: { 'f:spec': { 'f:b': {} } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1, b: 2 },
      resultOwners: { A: ['.spec.a'], B: ['.spec.b'] },
    },
    {
      name: 'a field the manager stops applying stays when an updater owns it',
      live: { a: 1, b: 2 },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:b': {} } }, 'kubectl-edit@Update': { 'f:spec': { 'f:b': {} } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1, b: 2 },
      resultOwners: { A: ['.spec.a'], 'kubectl-edit@Update': ['.spec.b'] },
    },
    {
      name: 'fields nobody owns are left alone',
      live: { a: 1, c: 3 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1, c: 3 },
      resultOwners: { A: ['.spec.a'] },
    },
    {
      name: 'an updater owning the field with another value conflicts',
      live: { a: 1 },
      owners: { 'clientctl-patch@Update': { 'f:spec': { 'f:a': {} } } },
      applied: { a: 2 },
      manager: 'A',
      conflicts: ['"clientctl-patch" .spec.a'],
    },
    {
      name: 'granular maps merge key by key',
      live: { m: { x: '1' } },
      owners: { A: { 'f:spec': { 'f:m': { 'f:x': {} } } } },
      applied: { m: { y: '2' } },
      manager: 'B',
      result: { m: { x: '1', y: '2' } },
      resultOwners: { A: ['.spec.m.x'], B: ['.spec.m.y'] },
    },
    {
      name: 'a map key the manager stops applying is removed',
      live: { m: { x: '1', y: '2' } },
      owners: { A: { 'f:spec': { 'f:m': { 'f:x': {}, 'f:y': {} } } } },
      applied: { m: { x: '1' } },
      manager: 'A',
      result: { m: { x: '1' } },
      resultOwners: { A: ['.spec.m.x'] },
    },
    {
      name: 'a map key with another value conflicts per key',
      live: { m: { x: '1', y: '2' } },
      owners: { A: { 'f:spec': { 'f:m': { 'f:x': {}, 'f:y': {} } } } },
      applied: { m: { x: '1', y: '3' } },
      manager: 'B',
      conflicts: ['"A" .spec.m.y'],
    },
    {
      name: 'an atomic map is one field: any change conflicts',
      live: { am: { x: '1' } },
      owners: { A: { 'f:spec': { 'f:am': {} } } },
      applied: { am: { y: '2' } },
      manager: 'B',
      conflicts: ['"A" .spec.am'],
    },
    {
      name: 'an atomic map is replaced as a whole when forced',
      live: { am: { x: '1' } },
      owners: { A: { 'f:spec': { 'f:am': {} } } },
      applied: { am: { y: '2' } },
      manager: 'B',
      force: true,
      result: { am: { y: '2' } },
      resultOwners: { B: ['.spec.am'] },
    },
    {
      name: 'an atomic struct is one field',
      live: { sel: { k: 'a', v: 'b' } },
      owners: { A: { 'f:spec': { 'f:sel': {} } } },
      applied: { sel: { k: 'a' } },
      manager: 'B',
      conflicts: ['"A" .spec.sel'],
    },
    {
      name: 'a struct the manager stops applying goes with the fields nobody else owns',
      live: { a: 1, nested: { x: 1, y: 2 } },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:nested': { 'f:x': {}, 'f:y': {} } } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1 },
      resultOwners: { A: ['.spec.a'] },
    },
    {
      name: 'a struct the manager stops applying keeps the fields another manager owns',
      live: { a: 1, nested: { x: 1, y: 2 } },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:nested': { 'f:x': {} } } }, B: { 'f:spec': { 'f:nested': { 'f:y': {} } } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1, nested: { y: 2 } },
      resultOwners: { A: ['.spec.a'], B: ['.spec.nested.y'] },
    },
    {
      name: 'a null in the configuration owns the field and leaves it out',
      live: { a: 1, b: 2 },
      owners: { A: { 'f:spec': { 'f:a': {} } } },
      applied: { b: null },
      manager: 'B',
      force: true,
      result: { a: 1 },
      resultOwners: { A: ['.spec.a'], B: ['.spec.b'] },
    },
  ],
  'atomic lists': [
    {
      name: 'an equal atomic list is shared',
      live: { al: [1, 2] },
      owners: { A: { 'f:spec': { 'f:al': {} } } },
      applied: { al: [1, 2] },
      manager: 'B',
      result: { al: [1, 2] },
      resultOwners: { A: ['.spec.al'], B: ['.spec.al'] },
    },
    {
      name: 'any other atomic list conflicts, even an extra item',
      live: { al: [1, 2] },
      owners: { A: { 'f:spec': { 'f:al': {} } } },
      applied: { al: [1, 2, 3] },
      manager: 'B',
      conflicts: ['"A" .spec.al'],
    },
    {
      name: 'a forced atomic list replaces the live one',
      live: { al: [1, 2] },
      owners: { A: { 'f:spec': { 'f:al': {} } } },
      applied: { al: [3] },
      manager: 'B',
      force: true,
      result: { al: [3] },
      resultOwners: { B: ['.spec.al'] },
    },
    {
      name: 'an atomic list the manager stops applying is removed',
      live: { a: 1, al: [1, 2] },
      owners: { A: { 'f:spec': { 'f:a': {}, 'f:al': {} } } },
      applied: { a: 1 },
      manager: 'A',
      result: { a: 1 },
      resultOwners: { A: ['.spec.a'] },
    },
    {
      name: 'the same manager replaces its own atomic list',
      live: { al: [1, 2] },
      owners: { A: { 'f:spec': { 'f:al': {} } } },
      applied: { al: [2, 1] },
      manager: 'A',
      result: { al: [2, 1] },
      resultOwners: { A: ['.spec.al'] },
    },
  ],
  'set lists': [
    {
      name: 'set items of two managers are merged, each owning its own',
      live: { s: ['a', 'b'] },
      owners: { A: { 'f:spec': { 'f:s': { 'v:"a"': {}, 'v:"b"': {} } } } },
      applied: { s: ['c'] },
      manager: 'B',
      result: { s: ['a', 'b', 'c'] },
      resultOwners: { A: ['.spec.s[="a"]', '.spec.s[="b"]'], B: ['.spec.s[="c"]'] },
    },
    {
      name: 'a value both apply is owned by both',
      live: { s: ['a', 'b'] },
      owners: { A: { 'f:spec': { 'f:s': { 'v:"a"': {}, 'v:"b"': {} } } } },
      applied: { s: ['a'] },
      manager: 'B',
      result: { s: ['a', 'b'] },
      resultOwners: { A: ['.spec.s[="a"]', '.spec.s[="b"]'], B: ['.spec.s[="a"]'] },
    },
    {
      name: 'a value the manager stops applying is removed',
      live: { s: ['a', 'b', 'c'] },
      owners: { A: { 'f:spec': { 'f:s': { 'v:"a"': {}, 'v:"b"': {} } } }, B: { 'f:spec': { 'f:s': { 'v:"c"': {} } } } },
      applied: { s: ['a'] },
      manager: 'A',
      result: { s: ['a', 'c'] },
      resultOwners: { A: ['.spec.s[="a"]'], B: ['.spec.s[="c"]'] },
    },
    {
      name: 'a value the manager stops applying stays when another manager owns it',
      live: { s: ['a', 'b'] },
      owners: { A: { 'f:spec': { 'f:s': { 'v:"a"': {}, 'v:"b"': {} } } }, B: { 'f:spec': { 'f:s': { 'v:"b"': {} } } } },
      applied: { s: ['a'] },
      manager: 'A',
      result: { s: ['a', 'b'] },
      resultOwners: { A: ['.spec.s[="a"]'], B: ['.spec.s[="b"]'] },
    },
    {
      name: 'numbers and strings are distinct set values',
      live: { s: [1] },
      owners: { A: { 'f:spec': { 'f:s': { 'v:1': {} } } } },
      applied: { s: ['1'] },
      manager: 'B',
      result: { s: [1, '1'] },
      resultOwners: { A: ['.spec.s[=1]'], B: ['.spec.s[="1"]'] },
    },
  ],
  'map lists': [
    {
      name: 'items of two managers are merged by key',
      live: { ml: [{ name: 'x', value: '1' }] },
      owners: { A: { 'f:spec': { 'f:ml': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } } },
      applied: { ml: [{ name: 'y', value: '2' }] },
      manager: 'B',
      result: {
        ml: [
          { name: 'x', value: '1' },
          { name: 'y', value: '2' },
        ],
      },
      resultOwners: {
        A: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name', '.spec.ml[name="x"].value'],
        B: ['.spec.ml[name="y"]', '.spec.ml[name="y"].name', '.spec.ml[name="y"].value'],
      },
    },
    {
      name: 'a field of another manager\'s item with another value conflicts',
      live: { ml: [{ name: 'x', value: '1' }] },
      owners: { A: { 'f:spec': { 'f:ml': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } } },
      applied: { ml: [{ name: 'x', value: '2' }] },
      manager: 'B',
      conflicts: ['"A" .spec.ml{"key":[["name","x"]]}.value'],
    },
    {
      name: 'force takes the item field and leaves the item shared',
      live: { ml: [{ name: 'x', value: '1' }] },
      owners: { A: { 'f:spec': { 'f:ml': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } } },
      applied: { ml: [{ name: 'x', value: '2' }] },
      manager: 'B',
      force: true,
      result: { ml: [{ name: 'x', value: '2' }] },
      resultOwners: {
        A: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name'],
        B: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name', '.spec.ml[name="x"].value'],
      },
    },
    {
      name: 'another field of the same item is added beside the owner\'s',
      live: { ml: [{ name: 'x', value: '1' }] },
      owners: { A: { 'f:spec': { 'f:ml': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } } },
      applied: { ml: [{ name: 'x', extra: 'e' }] },
      manager: 'B',
      result: { ml: [{ name: 'x', value: '1', extra: 'e' }] },
      resultOwners: {
        A: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name', '.spec.ml[name="x"].value'],
        B: ['.spec.ml[name="x"]', '.spec.ml[name="x"].extra', '.spec.ml[name="x"].name'],
      },
    },
    {
      name: 'an item the manager stops applying is removed',
      live: {
        ml: [
          { name: 'x', value: '1' },
          { name: 'y', value: '2' },
        ],
      },
      owners: {
        A: {
          'f:spec': {
            'f:ml': {
              'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {} },
              'k:{"name":"y"}': { '.': {}, 'f:name': {}, 'f:value': {} },
            },
          },
        },
      },
      applied: { ml: [{ name: 'x', value: '1' }] },
      manager: 'A',
      result: { ml: [{ name: 'x', value: '1' }] },
      resultOwners: { A: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name', '.spec.ml[name="x"].value'] },
    },
    {
      name: 'an item the manager stops applying stays, trimmed, when another manager owns part of it',
      live: { ml: [{ name: 'y', value: '2', extra: 'e' }] },
      owners: {
        A: { 'f:spec': { 'f:ml': { 'k:{"name":"y"}': { '.': {}, 'f:name': {}, 'f:value': {} } } } },
        B: { 'f:spec': { 'f:ml': { 'k:{"name":"y"}': { '.': {}, 'f:extra': {}, 'f:name': {} } } } },
      },
      applied: {},
      manager: 'A',
      result: { ml: [{ name: 'y', extra: 'e' }] },
      // An empty `spec: {}` in the configuration is itself owned, as Kubernetes records it.
      resultOwners: { A: ['.spec'], B: ['.spec.ml[name="y"]', '.spec.ml[name="y"].extra', '.spec.ml[name="y"].name'] },
    },
    {
      name: 'a field of an item the manager stops applying is removed from the item',
      live: { ml: [{ name: 'x', value: '1', extra: 'e' }] },
      owners: { A: { 'f:spec': { 'f:ml': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:value': {}, 'f:extra': {} } } } } },
      applied: { ml: [{ name: 'x', value: '1' }] },
      manager: 'A',
      result: { ml: [{ name: 'x', value: '1' }] },
      resultOwners: { A: ['.spec.ml[name="x"]', '.spec.ml[name="x"].name', '.spec.ml[name="x"].value'] },
    },
  ],
};

for (const [table, rows] of Object.entries(tables)) {
  describe(`apply: ${table}`, () => {
    it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => check(row));
  });
}

describe('apply: list order', () => {
  it('keeps live items in place and follows the applied order for items in both', () => {
    const owners = { B: { 'f:spec': { 'f:ml': { 'k:{"name":"a"}': {}, 'k:{"name":"b"}': {}, 'k:{"name":"c"}': {} } } } };
    const r = run({
      name: '',
      live: { ml: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
      owners,
      applied: { ml: [{ name: 'c' }, { name: 'a' }, { name: 'd' }] },
      manager: 'A',
    });
    expect((r.object.spec as { ml: { name: string }[] }).ml.map((i) => i.name)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('appends new set values after the live ones', () => {
    const r = run({ name: '', live: { s: ['x', 'y'] }, owners: { B: { 'f:spec': { 'f:s': { 'v:"x"': {}, 'v:"y"': {} } } } }, applied: { s: ['z', 'x'] }, manager: 'A' });
    expect((r.object.spec as { s: string[] }).s).toEqual(['z', 'x', 'y']);
  });
});

describe('apply: whole requests', () => {
  it('records an Apply entry with the version, the time and the stripped metadata', () => {
    const r = apply({
      applied: { ...widget({ a: 1 }), metadata: { name: 'w', labels: { team: 'x' } } },
      manager: 'A',
      apiVersion: TEST_API_VERSION,
      now: new Date('2026-11-22T07:00:00.123Z'),
      schema: testType,
    });
    expect(r.managedFields).toEqual([
      {
        manager: 'A',
        operation: 'Apply',
        apiVersion: TEST_API_VERSION,
        time: '2026-11-22T07:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:a': {} } },
      },
    ]);
    expect((r.object.metadata as { managedFields: unknown }).managedFields).toEqual(r.managedFields);
    expect(r.changed).toBe(true);
  });

  it('re-applying the same configuration changes nothing, not even the time', () => {
    const first = apply({ applied: widget({ a: 1, s: ['x'] }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    const second = apply({
      live: first.object,
      applied: widget({ a: 1, s: ['x'] }),
      manager: 'A',
      apiVersion: TEST_API_VERSION,
      now: '2026-11-22T08:00:00Z',
      schema: testType,
    });
    expect(second.changed).toBe(false);
    expect(second.object).toEqual(first.object);
  });

  it('a second applier sharing a value gets its own entry but leaves the object alone', () => {
    const first = apply({ applied: widget({ a: 1 }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    const second = apply({ live: first.object, applied: widget({ a: 1 }), manager: 'B', apiVersion: TEST_API_VERSION, now: '2026-11-22T08:00:00Z', schema: testType });
    expect(second.changed).toBe(false);
    expect(second.object.spec).toEqual({ a: 1 });
    // Kubernetes stamps an entry only when the object changed: B's new entry has no time, and
    // sorts first (no time counts as the epoch).
    expect(second.managedFields.map((e) => [e.manager, e.time])).toEqual([
      ['B', undefined],
      ['A', NOW],
    ]);
  });

  it('keeps the live object on conflict and names every field in the 409', () => {
    const live = widget(
      { a: 1, m: { x: '1' }, b: 2 },
      [
        ...entries({ 'clientctl-patch@Update': { 'f:spec': { 'f:a': {}, 'f:m': { 'f:x': {} } } } }),
        ...entries({ other: { 'f:spec': { 'f:b': {} } } }),
      ],
    );
    const r = apply({ live, applied: widget({ a: 2, m: { x: '2' }, b: 3 }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(r.object).toBe(live);
    const err = newApplyConflictError(r.conflicts);
    expect(err.status.code).toBe(409);
    expect(err.status.reason).toBe('Conflict');
    expect(err.status.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "clientctl-patch" using test.plat.io/v1:\n- .spec.a\n- .spec.m.x\nconflicts with "other":\n- .spec.b',
    );
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "clientctl-patch" using test.plat.io/v1', field: '.spec.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "clientctl-patch" using test.plat.io/v1', field: '.spec.m.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.spec.b' },
    ]);
  });

  it('names a subresource manager in conflicts', () => {
    const live = widget({ a: 1 }, [
      { manager: 'ctl', operation: 'Update', apiVersion: TEST_API_VERSION, subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:a': {} } } },
    ]);
    const r = apply({ live, applied: widget({ a: 2 }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(newApplyConflictError(r.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "ctl" with subresource "status" using test.plat.io/v1: .spec.a',
    );
  });

  it('keeps one Apply entry per manager across versions, now at the new version', () => {
    const live = widget({ a: 1 }, [
      { manager: 'A', operation: 'Apply', apiVersion: 'test.plat.io/v0', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:a': {} } } },
    ]);
    const r = apply({ live, applied: widget({ a: 1 }), manager: 'A', apiVersion: TEST_API_VERSION, now: '2026-11-22T09:00:00Z', schema: testType });
    expect(r.managedFields).toHaveLength(1);
    expect(r.managedFields[0].apiVersion).toBe(TEST_API_VERSION);
    // The object did not change, so the entry keeps its time.
    expect(r.managedFields[0].time).toBe(NOW);
  });

  it('gives an untracked object\'s fields to before-first-apply on the first apply', () => {
    const live = { ...widget({ a: 1, b: 2 }), metadata: { name: 'w', labels: { team: 'x' }, uid: 'u1', resourceVersion: '7' } };
    const r = apply({ live, applied: widget({ a: 1 }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(r.object.spec).toEqual({ a: 1, b: 2 });
    expect(ownersOf(r.managedFields)).toEqual({
      A: ['.spec.a'],
      'before-first-apply@Update': ['.metadata.labels', '.metadata.labels.team', '.spec.a', '.spec.b'],
    });
    const conflict = apply({ live, applied: widget({ a: 5 }), manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(newApplyConflictError(conflict.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using test.plat.io/v1: .spec.a',
    );
  });

  it('does not let the manager own fields the endpoint resets', () => {
    const r = apply({
      applied: { ...widget({ a: 1 }), status: { phase: 'Ready' } },
      manager: 'A',
      apiVersion: TEST_API_VERSION,
      now: NOW,
      schema: testType,
      ignoredFields: FieldSet.of([{ field: 'status' }]),
    });
    expect(ownersOf(r.managedFields)).toEqual({ A: ['.spec.a'] });
  });
});

describe('apply: refused requests', () => {
  const base = { manager: 'A', apiVersion: TEST_API_VERSION, now: NOW, schema: testType };

  function statusOf(fn: () => unknown): { code: number; reason?: string; message: string } {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      const s = (err as StatusError).status;
      return { code: s.code!, reason: s.reason, message: s.message! };
    }
    throw new Error('no error');
  }

  it('rejects another version or kind with 400', () => {
    expect(statusOf(() => apply({ ...base, applied: { ...widget({}), apiVersion: 'test.plat.io/v2' } }))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'invalid object type: test.plat.io/v2, Kind=Widget',
    });
    expect(statusOf(() => apply({ ...base, kind: 'Widget', applied: { ...widget({}), kind: 'Gadget', apiVersion: 'v1' } })).message).toBe(
      'invalid object type: /v1, Kind=Gadget',
    );
  });

  it('reads managedFields: null in the configuration as absent', () => {
    const applied = { ...widget({ a: 1 }), metadata: { name: 'w', managedFields: null } };
    expect(apply({ ...base, applied }).conflicts).toEqual([]);
  });

  it('rejects managedFields in the configuration with 400', () => {
    expect(statusOf(() => apply({ ...base, applied: widget({}, []) }))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'metadata.managedFields must be nil',
    });
  });

  it.each([
    [{ zzz: 1 }, '.spec.zzz: field not declared in schema'],
    [{ ml: [{ name: 'x' }, { name: 'x' }] }, '.spec.ml: duplicate entries for key [name="x"]'],
    [{ ml: [{ value: '1' }] }, '.spec.ml: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)'],
    [{ s: [{ a: 1 }] }, ".spec.s: element 0: associative list without keys has an element that's a map type"],
    [{ m: 'text' }, '.spec.m: expected map, got "text"'],
    [{ ml: { name: 'x' } }, '.spec.ml: expected list, got {"name":"x"}'],
  ])('refuses %j with Kubernetes\' text naming the field, as a 400 (kube-apiserver: 500)', (spec, detail) => {
    expect(statusOf(() => apply({ ...base, applied: widget(spec) }))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: `failed to create typed patch object (/w; test.plat.io/v1, Kind=Widget): ${detail}`,
    });
  });

  it('lists several schema errors under "errors:"', () => {
    expect(statusOf(() => apply({ ...base, applied: widget({ y: 1, z: 2 }) })).message).toBe(
      'failed to create typed patch object (/w; test.plat.io/v1, Kind=Widget): errors:\n  .spec.y: field not declared in schema\n  .spec.z: field not declared in schema',
    );
  });

  it('fails on live managedFields it cannot read', () => {
    const live = widget({ a: 1 }, [{ manager: 'x', operation: 'Apply', apiVersion: TEST_API_VERSION, fieldsType: 'FieldsV2' }]);
    expect(statusOf(() => apply({ ...base, live, applied: widget({ a: 1 }) }))).toEqual({
      code: 500,
      reason: '',
      message: 'failed to decode managed fields: invalid fieldsType "FieldsV2" in managed fields entry 0',
    });
  });

  it('rejects a body that is not an object', () => {
    expect(statusOf(() => apply({ ...base, applied: [1] })).code).toBe(400);
  });
});

describe('apply: items a stored list holds more than once', () => {
  // Kubernetes tolerates repeated keys in stored objects (not in a configuration) and treats
  // such an item as one unit: owned as a whole, kept while untouched, replaced when applied.
  async function updated(spec: unknown) {
    const { recordUpdate } = await import('./record-update.js');
    return recordUpdate({ after: widget(spec), manager: 'updater', apiVersion: TEST_API_VERSION, now: NOW, schema: testType }).object;
  }

  it('an updater owns a repeated set value once and a repeated map-list item as a whole', async () => {
    const obj = await updated({ s: [1, 1, 3, 4], ml: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }, { name: 'b', value: '3' }] });
    expect(ownersOf((obj.metadata as { managedFields: never }).managedFields)).toEqual({
      'updater@Update': [
        '.spec.ml',
        '.spec.s',
        '.spec.ml[name="a"]',
        '.spec.ml[name="b"]',
        '.spec.ml[name="b"].name',
        '.spec.ml[name="b"].value',
        '.spec.s[=1]',
        '.spec.s[=3]',
        '.spec.s[=4]',
      ],
    });
  });

  it('applying something else keeps the repeated items', async () => {
    const live = await updated({ s: [1, 1, 3, 4], ml: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] });
    const r = apply({ live, applied: widget({ s: [5], a: 1 }), manager: 'applier', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(r.object.spec).toEqual({ s: [1, 1, 3, 4, 5], ml: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }], a: 1 });
    expect(ownersOf(r.managedFields).applier).toEqual(['.spec.a', '.spec.s[=5]']);
  });

  it('applying a repeated item conflicts with its owner and, forced, replaces every occurrence', async () => {
    const live = await updated({ ml: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }, { name: 'b', value: '3' }] });
    const applied = widget({ ml: [{ name: 'a', value: '2' }] });
    const refused = apply({ live, applied, manager: 'applier', apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(newApplyConflictError(refused.conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "updater" using test.plat.io/v1: .spec.ml[name="a"]',
    );
    const forced = apply({ live, applied, manager: 'applier', force: true, apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(forced.object.spec).toEqual({ ml: [{ name: 'a', value: '2' }, { name: 'b', value: '3' }] });
    expect(ownersOf(forced.managedFields)).toEqual({
      applier: ['.spec.ml[name="a"]', '.spec.ml[name="a"].name', '.spec.ml[name="a"].value'],
      'updater@Update': ['.spec.ml', '.spec.ml[name="b"]', '.spec.ml[name="b"].name', '.spec.ml[name="b"].value'],
    });
  });

  it('a forced set value replaces its repeated occurrences', async () => {
    const live = await updated({ s: [1, 1, 3, 4] });
    const r = apply({ live, applied: widget({ s: [1] }), manager: 'applier', force: true, apiVersion: TEST_API_VERSION, now: NOW, schema: testType });
    expect(r.object.spec).toEqual({ s: [1, 3, 4] });
    expect(ownersOf(r.managedFields)).toEqual({ applier: ['.spec.s[=1]'], 'updater@Update': ['.spec.s', '.spec.s[=3]', '.spec.s[=4]'] });
  });
});
