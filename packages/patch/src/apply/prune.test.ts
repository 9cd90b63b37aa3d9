import { FieldSet } from './fieldpath.js';
import { prune } from './apply.js';
import type { Managers } from './managed-fields.js';
import { TypedContext, compare, dropNullFields, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet } from './typed.js';
import { testType } from '../../test/apply/test-schema.js';

/** Kubernetes' three steps (Updater.prune), built from the same primitives, as the reference. */
function pruneReference(merged: unknown, managers: Managers, lastSet: FieldSet): unknown {
  const t = testType;
  const fs = (v: unknown) => ensureNamedFieldsAreMembers(toFieldSet(v, t, new TypedContext(false)), t);
  const last = ensureNamedFieldsAreMembers(lastSet, t);
  let pruned = removeItems(merged, t, last);
  let owned = new FieldSet();
  for (const m of managers.values()) owned = owned.union(m.fields);
  const mergedSet = fs(merged);
  pruned = removeItems(merged, t, mergedSet.difference(fs(pruned).union(ensureNamedFieldsAreMembers(owned, t))));
  return dropNullFields(removeItems(merged, t, mergedSet.difference(fs(pruned)).intersection(last)), t);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomSpec(r: () => number): Record<string, unknown> {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const spec: Record<string, unknown> = {};
  if (r() < 0.5) spec.a = pick([1, 2]);
  if (r() < 0.5) spec.b = pick(['x', 'y']);
  if (r() < 0.5) spec.m = Object.fromEntries(['k1', 'k2', 'k3'].filter(() => r() < 0.5).map((k) => [k, pick(['1', '2'])]));
  if (r() < 0.4) spec.am = { z: pick(['1', '2']) };
  if (r() < 0.5) spec.s = ['p', 'q', 'r'].filter(() => r() < 0.5);
  if (r() < 0.4) spec.al = [pick([1, 2]), 3];
  if (r() < 0.6) {
    spec.ml = ['x', 'y', 'z']
      .filter(() => r() < 0.5)
      .map((name) => ({ name, ...(r() < 0.6 ? { value: pick(['1', '2']) } : {}), ...(r() < 0.3 ? { extra: 'e' } : {}) }));
  }
  if (r() < 0.5) spec.nested = Object.fromEntries(['x', 'y'].filter(() => r() < 0.6).map((k) => [k, pick([1, 2])]));
  return spec;
}

describe('prune', () => {
  it('equals Kubernetes\' three-step prune on 2000 random cases', () => {
    const r = rng(20261122);
    for (let i = 0; i < 2000; i++) {
      const live = { spec: merge(randomSpec(r), randomSpec(r), testType, new TypedContext(false)) };
      const managers: Managers = new Map();
      const names = ['A', 'B', 'C'];
      for (const n of names) {
        if (r() < 0.3) continue;
        managers.set(n, { manager: n, operation: 'Apply', apiVersion: 'v', fields: toFieldSet({ spec: randomSpec(r) }, testType, new TypedContext(false)) });
      }
      if (r() < 0.5) {
        // An updater owns what its request added, containers included.
        const added = compare({ spec: {} }, { spec: randomSpec(r) }, testType, new TypedContext(false)).added;
        managers.set('U', { manager: 'U', operation: 'Update', apiVersion: 'v', fields: added });
      }
      const lastSet = toFieldSet({ spec: randomSpec(r) }, testType, new TypedContext(false));
      const applied = { spec: randomSpec(r) };
      managers.set('self', { manager: 'self', operation: 'Apply', apiVersion: 'v', fields: toFieldSet(applied, testType, new TypedContext(false)) });
      const merged = merge(live, applied, testType, new TypedContext(false)) as Record<string, unknown>;
      const ours = prune(merged, testType, managers, 'self', lastSet);
      expect({ case: i, result: ours }).toEqual({ case: i, result: pruneReference(merged, managers, lastSet) });
    }
  });
});
