import { isJsonObject, type JsonObject } from '../json-value.js';
import { FieldSet, type FieldPath } from './fieldpath.js';
import type { Managers } from './managed-fields.js';
import type { ApplyType } from './schema.js';
import { TypedContext, compare, type Comparison } from './typed.js';

/**
 * The steps shared by apply and Update tracking: who loses which fields when an object changes
 * (structured-merge-diff Updater.update), the metadata nobody owns (stripMetaManager), and the
 * empty object a create starts from.
 */

/** A field another manager owns with a different value than the request wants. */
export interface ApplyConflict {
  /** The manager's identifier (its entry without fields and time). */
  readonly id: string;
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly path: FieldPath;
}

export interface OwnershipChange {
  readonly managers: Managers;
  readonly comparison: Comparison;
  /** Fields of other managers the change touched (taken from them when forced). */
  readonly conflicts: ApplyConflict[];
}

/**
 * Compares `before` with `after` and takes from every manager but `self` the fields the change
 * removed and, when `force`, the fields it added or modified; without `force` those are
 * conflicts and the managers are returned unchanged. Managers left with no field are dropped.
 */
export function updateOwnership(
  before: unknown,
  after: unknown,
  type: ApplyType,
  managers: Managers,
  self: string,
  force: boolean,
): OwnershipChange {
  const comparison = compare(before, after, type, new TypedContext(false));
  const touched = comparison.modified.union(comparison.added);
  const conflicts: ApplyConflict[] = [];
  const out: Managers = new Map();
  for (const [id, m] of managers) {
    if (id === self) {
      out.set(id, m);
      continue;
    }
    const taken = m.fields.intersection(touched);
    for (const path of taken.paths()) {
      conflicts.push({
        id,
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
        ...(m.subresource ? { subresource: m.subresource } : {}),
        path,
      });
    }
    let fields = m.fields;
    if (force && !taken.isEmpty()) fields = fields.difference(taken);
    if (!comparison.removed.isEmpty() && !fields.intersection(comparison.removed).isEmpty()) {
      fields = fields.difference(comparison.removed);
    }
    if (!fields.isEmpty()) out.set(id, fields === m.fields ? m : { ...m, fields });
  }
  if (!force && conflicts.length) return { managers, comparison, conflicts };
  return { managers: out, comparison, conflicts: force ? [] : conflicts };
}

/**
 * Paths nobody owns (Kubernetes' stripMetaManager): identity and system metadata. Exact paths:
 * `.metadata.labels.x` stays owned while `.metadata` itself does not.
 */
export const STRIPPED_FIELDS: FieldSet = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (f) => [{ field: 'metadata' }, { field: f }],
  ),
);

/**
 * The empty object a create (or the first apply to an untracked object) is compared with. In
 * Kubernetes it is the Go zero value of the kind, in which `metadata`, `spec` and `status` are
 * present empty structs; the request therefore adds their fields, not the structs themselves.
 */
export function zeroObject(type: ApplyType): JsonObject {
  const out: JsonObject = {};
  if (type.kind !== 'struct' || type.atomic) return out;
  for (const name of ['metadata', 'spec', 'status']) {
    const f = type.field(name);
    if (f && f.kind === 'struct' && !f.atomic) out[name] = {};
  }
  return out;
}

/** The object without `metadata.managedFields` (a shallow copy when there were some). */
export function withoutManagedFields<T>(obj: T): T {
  if (!isJsonObject(obj) || !isJsonObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata } as T;
}

/** `obj` with `metadata.managedFields` set to `entries`, or without it when there are none. */
export function withManagedFields(obj: JsonObject, entries: readonly unknown[]): JsonObject {
  const metadata: JsonObject = isJsonObject(obj.metadata) ? { ...obj.metadata } : {};
  if (entries.length) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return { ...obj, metadata };
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function formatTime(now: string | Date): string {
  const d = typeof now === 'string' ? new Date(now) : now;
  if (Number.isNaN(d.getTime())) throw new TypeError(`invalid time ${String(now)}`);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
