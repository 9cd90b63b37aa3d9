import {
  StatusError,
  StatusReason,
  goQuote,
  newApplyConflict,
  newBadRequest,
  type ManagedFieldsEntry,
  type StatusCause,
} from '@plat/api-model';
import { deepEqualJson, isJsonObject, type JsonObject } from '../json-value.js';
import { pathString, type FieldSet } from './fieldpath.js';
import {
  ManagedFieldsDecodeError,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  type Manager,
  type Managers,
} from './managed-fields.js';
import {
  STRIPPED_FIELDS,
  formatTime,
  updateOwnership,
  withManagedFields,
  withoutManagedFields,
  zeroObject,
  type ApplyConflict,
} from './ownership.js';
import { KUBECTL_MANAGER, allowedConflictsFromLastApplied, syncLastApplied } from './last-applied.js';
import { recordUpdateOnManagers } from './record-update.js';
import { applyTypeForKind, type ApplyType } from './schema.js';
import {
  TypedContext,
  dropNullFields,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
  typeErrorsText,
} from './typed.js';

/** The manager that owns an untracked object's fields when it is first applied to. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

export interface ApplyOptions {
  /** The stored object (with its managedFields); undefined when the apply creates it. */
  readonly live?: JsonObject;
  /** The decoded apply patch body: the manager's full intent. */
  readonly applied: unknown;
  /** The `fieldManager` query parameter (required for apply; the caller rejects its absence). */
  readonly manager: string;
  /** The `force` query parameter: take conflicting fields instead of failing. */
  readonly force?: boolean;
  /** The resource's group/version, which the applied object must carry (`certificates.plat.io/v1alpha1`). */
  readonly apiVersion: string;
  /** The resource's kind; by default the live object's, else the applied object's. */
  readonly kind?: string;
  /** Subresource of the request (`status`), recorded in the entry. */
  readonly subresource?: string;
  /** The live object's managedFields; by default `live.metadata.managedFields`. */
  readonly managedFields?: readonly ManagedFieldsEntry[];
  /** The time to stamp on entries this request changes. */
  readonly now: string | Date;
  /** The schema; by default looked up by apiVersion/kind (deduced for unknown kinds). */
  readonly schema?: ApplyType;
  /** Fields nobody may own through this endpoint (Kubernetes' reset fields, e.g. `.status`). */
  readonly ignoredFields?: FieldSet;
}

export interface ApplyResult {
  /**
   * The object to store: the merge of the applied configuration into the live object, with its
   * new managedFields. On conflicts, the live object unchanged.
   */
  readonly object: JsonObject;
  readonly managedFields: ManagedFieldsEntry[];
  /** Fields owned by other managers with another value; empty when forced or when there are none. */
  readonly conflicts: ApplyConflict[];
  /** Whether the object changed apart from managedFields (an unchanged re-apply is false). */
  readonly changed: boolean;
}

function gvkText(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/** A plain error of kube-apiserver's field manager: 500 with no reason, the text as message. */
function internalFieldManagerError(message: string): StatusError {
  return new StatusError({ code: 500, reason: StatusReason.Unknown, message });
}

/**
 * An applied configuration that does not fit the schema. kube-apiserver answers it with its field
 * manager's plain error (500, no reason); the text is the same here, but it is the client's input
 * that is wrong, so it is 400 BadRequest: bad input never gets a 5xx from this server.
 */
function typedPatchObjectError(message: string): StatusError {
  return newBadRequest(message);
}

/**
 * Server-side apply (Kubernetes' FieldManager.Apply over structured-merge-diff's Updater.Apply):
 * merges the applied configuration into the live object, removes what the manager applied last
 * time and no longer does when nobody else owns it, records the manager's Apply entry, and
 * reports fields other managers own with another value (taken from them when `force`).
 *
 * Throws a StatusError for a request Kubernetes refuses: 400 for an applied object of another
 * kind or version, one carrying managedFields or one that does not fit the schema (kube-apiserver:
 * 500), and 500 (no reason) for live managedFields that cannot be decoded.
 */
export function apply(opts: ApplyOptions): ApplyResult {
  const applied = opts.applied;
  if (!isJsonObject(applied)) throw newBadRequest('error decoding YAML: the apply patch must be an object');
  const kind = opts.kind ?? (typeof opts.live?.kind === 'string' ? opts.live.kind : undefined) ?? String(applied.kind ?? '');
  if (applied.apiVersion !== opts.apiVersion || applied.kind !== kind) {
    throw newBadRequest(`invalid object type: ${gvkText(String(applied.apiVersion ?? ''), String(applied.kind ?? ''))}`);
  }
  // null reads as absent (Unstructured.GetManagedFields), even an empty list does not.
  if (isJsonObject(applied.metadata) && applied.metadata.managedFields != null) {
    throw newBadRequest('metadata.managedFields must be nil');
  }
  const type = opts.schema ?? applyTypeForKind(opts.apiVersion, kind);
  const now = formatTime(opts.now);

  let managers: Managers;
  const entries = opts.managedFields ?? (isJsonObject(opts.live?.metadata) ? opts.live.metadata.managedFields : undefined);
  const liveEntries = Array.isArray(entries) ? (entries as ManagedFieldsEntry[]) : [];
  try {
    managers = decodeManagedFields(liveEntries);
  } catch (err) {
    if (err instanceof ManagedFieldsDecodeError) throw internalFieldManagerError(`failed to decode managed fields: ${err.message}`);
    throw err;
  }

  const live = opts.live ? withoutManagedFields(opts.live) : undefined;

  // An object stored before tracking (or after a reset): everything in it so far belongs to
  // before-first-apply, an Update entry (ProbabilisticSkipNonAppliedManager).
  if (managers.size === 0 && live) {
    managers = recordUpdateOnManagers({
      before: zeroObject(type),
      after: live,
      type,
      managers,
      manager: BEFORE_FIRST_APPLY_MANAGER,
      apiVersion: opts.apiVersion,
      now,
    });
  }

  const strict = new TypedContext(true);
  let appliedSet = toFieldSet(applied, type, strict);
  if (strict.errors.length) {
    // Named as kube-apiserver names the object: `namespace/name; group/version, Kind=Kind`.
    const meta = isJsonObject(applied.metadata) ? applied.metadata : {};
    const nn = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
    throw typedPatchObjectError(
      `failed to create typed patch object (${nn}; ${gvkText(opts.apiVersion, kind)}): ${typeErrorsText(strict.errors)}`,
    );
  }
  if (opts.ignoredFields) appliedSet = appliedSet.recursiveDifference(opts.ignoredFields);

  const base = live ?? {};
  const merged = merge(base, applied, type, new TypedContext(false)) as JsonObject;

  const self = managerIdentifier({ manager: opts.manager, operation: 'Apply', subresource: opts.subresource });
  const previous = managers.get(self);
  const withSelf: Managers = new Map(managers);
  withSelf.set(self, {
    manager: opts.manager,
    operation: 'Apply',
    apiVersion: opts.apiVersion,
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
    ...(previous?.time ? { time: previous.time } : {}),
    fields: appliedSet,
  });

  const pruned = prune(merged, type, withSelf, self, previous?.fields);
  let ownership = updateOwnership(base, pruned, type, withSelf, self, opts.force ?? false);
  if (ownership.conflicts.length && live && opts.manager === KUBECTL_MANAGER) {
    // Moving from client-side to server-side apply: kubectl may take, without a conflict, the
    // fields its last-applied annotation still describes (lastAppliedManager).
    const allowed = allowedConflictsFromLastApplied(live, type);
    if (allowed) {
      const remaining = ownership.conflicts.filter((c) => !allowed.has(c.path));
      ownership = remaining.length
        ? { ...ownership, conflicts: remaining }
        : updateOwnership(base, pruned, type, withSelf, self, true);
    }
  }
  if (ownership.conflicts.length) {
    return { object: opts.live ?? {}, managedFields: liveEntries, conflicts: sortConflicts(ownership.conflicts), changed: false };
  }

  const result = new Map(ownership.managers);
  const mine = result.get(self)!;
  const fields = mine.fields.difference(STRIPPED_FIELDS);
  const mergedChanged = !live || !deepEqualJson(live, pruned);
  if (fields.isEmpty()) result.delete(self);
  else {
    const same = previous && previous.apiVersion === opts.apiVersion && previous.fields.equals(fields);
    // The entry is stamped only when the object changed (managedFieldsUpdater): an apply that
    // changes nothing keeps the entry's time, or has none when its entry is new.
    const stamp = mergedChanged ? { time: now } : {};
    const updated: Manager = same ? { ...previous, ...stamp } : { ...mine, fields, ...stamp };
    result.set(self, updated);
  }
  const managedFields = encodeManagedFields(capUpdateManagers(result));
  const content = syncLastApplied(mergedChanged ? pruned : (live as JsonObject), applied, opts.manager);
  const changed = mergedChanged || !deepEqualJson(live, content);
  return { object: withManagedFields(content, managedFields), managedFields, conflicts: [], changed };
}

/**
 * Removes from `merged` what the applier owned last time and owns no longer, unless another
 * manager (or the applier's new configuration) still owns it (Updater.prune). Struct fields
 * count as owned when something below them is, so a struct goes only when nothing in it is
 * owned; a list item or map key goes with everything under it. This is the result of
 * Kubernetes' three steps (remove the last applied set, add back owned items, add back dangling
 * items) in one removal.
 */
export function prune(
  merged: JsonObject,
  type: ApplyType,
  managers: Managers,
  self: string,
  lastSet: FieldSet | undefined,
): JsonObject {
  if (!lastSet || lastSet.isEmpty()) return merged;
  // Everything owned last time is applied again: nothing can go (the usual re-apply).
  if (lastSet.difference(managers.get(self)!.fields).isEmpty()) return merged;
  let owned: FieldSet | undefined;
  for (const m of managers.values()) owned = owned ? owned.union(m.fields) : m.fields;
  const disowned = ensureNamedFieldsAreMembers(lastSet, type).difference(ensureNamedFieldsAreMembers(owned!, type));
  // Only what the merged object sets can go: an empty list (which sets nothing) stays.
  const present = ensureNamedFieldsAreMembers(toFieldSet(merged, type, new TypedContext(false)), type);
  return dropNullFields(removeItems(merged, type, disowned.intersection(present)) ?? {}, type) as JsonObject;
}

function sortConflicts(conflicts: ApplyConflict[]): ApplyConflict[] {
  // Grouped by manager identifier as Kubernetes prints them; paths keep the set's order.
  const order = [...new Set(conflicts.map((c) => c.id))].sort();
  return order.flatMap((id) => conflicts.filter((c) => c.id === id));
}

/** How Kubernetes names a manager in a conflict: `"name"`, plus subresource and, for Update, version. */
export function describeManager(c: Pick<ApplyConflict, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = goQuote(c.manager);
  if (c.subresource) s += ` with subresource ${goQuote(c.subresource)}`;
  if (c.operation === 'Update') s += ` using ${c.apiVersion}`;
  return s;
}

/**
 * The 409 Conflict Kubernetes answers for apply conflicts: one FieldManagerConflict cause per
 * field, and the message `Apply failed with N conflict(s): ...` grouped by manager.
 */
export function newApplyConflictError(conflicts: readonly ApplyConflict[]): StatusError {
  const sorted = sortConflicts([...conflicts]);
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(c)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(sorted[0])}: ${pathString(sorted[0].path)}`;
  } else {
    const lines: string[] = [];
    let current = '';
    for (const c of sorted) {
      if (c.id !== current) {
        current = c.id;
        lines.push(`conflicts with ${describeManager(c)}:`);
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return newApplyConflict(causes, message);
}
