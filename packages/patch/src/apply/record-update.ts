import type { ManagedFieldsEntry } from '@plat/api-model';
import { isJsonObject, type JsonObject } from '../json-value.js';
import type { FieldSet } from './fieldpath.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  type Managers,
} from './managed-fields.js';
import { STRIPPED_FIELDS, formatTime, updateOwnership, withManagedFields, withoutManagedFields, zeroObject } from './ownership.js';
import { applyTypeForKind, type ApplyType } from './schema.js';

export interface RecordUpdateOptions {
  /** The stored object; undefined for a create. */
  readonly before?: JsonObject;
  /**
   * The object about to be stored (after the PUT body, or the JSON/merge/strategic patch, and
   * defaulting). Its `metadata.managedFields` is what the client sent: absent or undecodable
   * keeps the stored entries, `[]` or `[{}]` resets tracking, anything else replaces them.
   */
  readonly after: JsonObject;
  /** The `fieldManager` of the request (kube-apiserver defaults it from the User-Agent). */
  readonly manager: string;
  /** The resource's group/version. */
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly now: string | Date;
  readonly operation?: 'Update';
  /**
   * The entries to start from, when the caller has chosen them already; by default they are
   * chosen from `after` and `before` as described above.
   */
  readonly managedFields?: readonly ManagedFieldsEntry[];
  /** The schema; by default looked up by apiVersion and the object's kind. */
  readonly schema?: ApplyType;
  /** Fields nobody may own through this endpoint (Kubernetes' reset fields, e.g. `.status`). */
  readonly ignoredFields?: FieldSet;
  /**
   * The empty object a create is compared with (Kubernetes: the kind's Go zero value). By
   * default `metadata`, `spec` and `status` present as empty objects when the schema has them.
   */
  readonly emptyObject?: JsonObject;
}

export interface RecordUpdateResult {
  /** `after` with its new `metadata.managedFields` (absent when nothing is tracked). */
  readonly object: JsonObject;
  readonly managedFields: ManagedFieldsEntry[];
}

function entriesOf(obj: JsonObject | undefined): unknown {
  return isJsonObject(obj?.metadata) ? obj.metadata.managedFields : undefined;
}

function decodeOrEmpty(entries: unknown): Managers | undefined {
  if (!Array.isArray(entries)) return new Map();
  try {
    return decodeManagedFields(entries as ManagedFieldsEntry[]);
  } catch {
    return undefined;
  }
}

/**
 * Records an Update operation (create, PUT, JSON/merge/strategic patch) in managedFields, as
 * Kubernetes' field manager does: the manager's Update entry for this apiVersion/subresource
 * gains the fields this request added or changed (its time set to `now` when it did change
 * something); other managers lose fields the request removed or changed; empty entries go; at
 * most ten Update entries are kept. An existing object that has no managedFields stays untracked
 * until it is first applied to. Never fails: undecodable entries are dropped, as Kubernetes does.
 */
export function recordUpdate(opts: RecordUpdateOptions): RecordUpdateResult {
  const kind = typeof opts.after.kind === 'string' ? opts.after.kind : '';
  const type = opts.schema ?? applyTypeForKind(opts.apiVersion, kind);
  const requested = entriesOf(opts.after);

  // Which entries the request starts from (FieldManager.decodeManagedFields): a subresource
  // never sets them; a reset clears them; otherwise the request's own when it sent any valid.
  let managers: Managers;
  if (opts.managedFields) managers = decodeOrEmpty(opts.managedFields) ?? new Map();
  else if (opts.subresource) managers = decodeOrEmpty(entriesOf(opts.before)) ?? new Map();
  else if (isResetManagedFields(requested)) managers = new Map();
  else {
    const fromRequest = decodeOrEmpty(requested);
    managers = fromRequest && fromRequest.size ? fromRequest : (decodeOrEmpty(entriesOf(opts.before)) ?? new Map());
  }

  const after = withoutManagedFields(opts.after);
  // An update of an untracked object stays untracked (ProbabilisticSkipNonAppliedManager).
  if (managers.size === 0 && opts.before) return { object: withManagedFields(after, []), managedFields: [] };

  const before = opts.before ? withoutManagedFields(opts.before) : (opts.emptyObject ?? zeroObject(type));
  const result = recordUpdateOnManagers({
    before,
    after,
    type,
    managers,
    manager: opts.manager,
    apiVersion: opts.apiVersion,
    subresource: opts.subresource,
    now: formatTime(opts.now),
    ignoredFields: opts.ignoredFields,
  });
  const managedFields = encodeManagedFields(result);
  return { object: withManagedFields(after, managedFields), managedFields };
}

/** The managers after an Update by `manager` from `before` to `after` (both without managedFields). */
export function recordUpdateOnManagers(o: {
  before: unknown;
  after: unknown;
  type: ApplyType;
  managers: Managers;
  manager: string;
  apiVersion: string;
  subresource?: string;
  now: string;
  ignoredFields?: FieldSet;
}): Managers {
  // The request's own changes are computed as a manager of their own ("current-operation"),
  // then merged into the manager's entry (managedFieldsUpdater).
  const self = '\u0000current-operation';
  const { managers, comparison } = updateOwnership(o.before, o.after, o.type, o.managers, self, true);
  let changed = comparison.modified.union(comparison.added).difference(STRIPPED_FIELDS);
  if (o.ignoredFields) changed = changed.recursiveDifference(o.ignoredFields);
  const out: Managers = new Map(managers);
  if (!changed.isEmpty()) {
    const id = managerIdentifier({ manager: o.manager, operation: 'Update', apiVersion: o.apiVersion, subresource: o.subresource });
    const previous = out.get(id);
    out.set(id, {
      manager: o.manager,
      operation: 'Update',
      apiVersion: o.apiVersion,
      ...(o.subresource ? { subresource: o.subresource } : {}),
      time: o.now,
      fields: previous ? changed.union(previous.fields) : changed,
    });
  }
  return capUpdateManagers(out);
}
