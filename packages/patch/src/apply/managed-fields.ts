import { encodeJson, type ManagedFieldsEntry } from '@plat/api-model';
import { FieldSet } from './fieldpath.js';

/**
 * managedFields on the wire ↔ the managers the engine works with. One manager is one entry,
 * identified as Kubernetes does (BuildManagerIdentifier): manager name, operation, apiVersion
 * (Update only: an applier keeps one entry across versions) and subresource.
 */

export type ManagedOperation = 'Apply' | 'Update';

export interface Manager {
  readonly manager: string;
  readonly operation: ManagedOperation;
  readonly apiVersion: string;
  readonly subresource?: string;
  /** RFC 3339, second precision; absent when never stamped. */
  readonly time?: string;
  readonly fields: FieldSet;
  /**
   * The entry this manager was decoded from: written back as it was while `fields` is still
   * the very set decoded from it (Kubernetes keeps unchanged entries byte for byte too).
   */
  readonly decodedFrom?: { readonly fields: FieldSet; readonly fieldsV1: Record<string, unknown> };
}

/** Managers by identifier. */
export type Managers = Map<string, Manager>;

/** The identifier Kubernetes keys a manager by: the entry's JSON without fields and time. */
export function managerIdentifier(m: {
  manager?: string;
  operation: ManagedOperation;
  apiVersion?: string;
  subresource?: string;
}): string {
  const id: Record<string, string> = {};
  if (m.manager) id.manager = m.manager;
  id.operation = m.operation;
  if (m.operation === 'Update' && m.apiVersion) id.apiVersion = m.apiVersion;
  if (m.subresource) id.subresource = m.subresource;
  return JSON.stringify(id);
}

/** A managedFields list that could not be decoded; the message is Kubernetes' text. */
export class ManagedFieldsDecodeError extends Error {
  readonly code = 'ERR_MANAGED_FIELDS_DECODE';
  constructor(message: string) {
    super(message);
    this.name = 'ManagedFieldsDecodeError';
  }
}

/**
 * Decodes managedFields (DecodeManagedFields): every entry needs operation Apply or Update, an
 * apiVersion and fieldsType FieldsV1. Two entries with one identifier are merged.
 */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined | null): Managers {
  const out: Managers = new Map();
  (entries ?? []).forEach((e, i) => {
    if (e === null || typeof e !== 'object') throw new ManagedFieldsDecodeError(`managed fields entry ${i} is not an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    }
    if (!e.apiVersion) throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (!e.fieldsType) throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') {
      throw new ManagedFieldsDecodeError(`invalid fieldsType ${encodeJson(e.fieldsType)} in managed fields entry ${i}`);
    }
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsDecodeError(`error decoding versioned set from entry ${i}: error decoding set: ${(err as Error).message}`);
    }
    const id = managerIdentifier({ manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource });
    const previous = out.get(id);
    const merged = previous ? previous.fields.union(fields) : fields;
    out.set(id, {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : previous?.time ? { time: previous.time } : {}),
      fields: merged,
      ...(previous || !e.fieldsV1 ? {} : { decodedFrom: { fields, fieldsV1: e.fieldsV1 } }),
    });
  });
  return out;
}

/**
 * Whether a request's managedFields ask for tracking to be reset: an empty list, or a list of
 * one empty entry (Kubernetes' isResetManagedFields).
 */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return (
    entries.length === 1 &&
    entries[0] !== null &&
    typeof entries[0] === 'object' &&
    // Go compares with the zero entry, so empty strings and nulls count as unset.
    Object.values(entries[0] as Record<string, unknown>).every((v) => v === undefined || v === null || v === '')
  );
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Encodes managers as managedFields in Kubernetes' order: Apply entries before Update entries,
 * then by time, manager, apiVersion and subresource. Members appear in metav1's field order.
 */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const m of managers.values()) {
    const e: ManagedFieldsEntry = {};
    if (m.manager) e.manager = m.manager;
    e.operation = m.operation;
    e.apiVersion = m.apiVersion;
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.decodedFrom && m.decodedFrom.fields === m.fields ? m.decodedFrom.fieldsV1 : m.fields.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    entries.push(e);
  }
  return entries.sort(
    (p, q) =>
      compareStrings(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** Kubernetes' cap on Update entries (DefaultMaxUpdateManagers). */
export const MAX_UPDATE_MANAGERS = 10;
/** The entry the oldest Update entries are folded into past the cap. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Keeps at most `max` Update entries (capManagersManager): the oldest are folded, per apiVersion,
 * into an `ancient-changes` entry carrying the time of the newest entry folded in.
 */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): Managers {
  const updaters = [...managers.entries()].filter(([, m]) => m.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return managers;
  const out: Managers = new Map(managers);
  updaters.sort((a, b) => seconds(out.get(a)!.time) - seconds(out.get(b)!.time) || compareStrings(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i];
    const m = out.get(id)!;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: m.apiVersion });
    const first = firstByVersion.get(m.apiVersion);
    if (first === undefined) {
      firstByVersion.set(m.apiVersion, id);
      continue;
    }
    if (!out.has(bucket)) {
      const f = out.get(first)!;
      out.delete(first);
      out.set(bucket, { ...f, manager: ANCIENT_CHANGES_MANAGER, subresource: undefined });
    }
    const b = out.get(bucket)!;
    out.set(bucket, { ...b, fields: m.fields.union(b.fields), ...(m.time ? { time: m.time } : {}) });
    out.delete(id);
    length--;
  }
  return out;
}

/** Kubernetes' limit on a field manager's length (validation.FieldManagerMaxLength). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The manager an Update is recorded under (kube-apiserver managerOrUserAgent): the
 * `fieldManager` query parameter, else the User-Agent up to its first `/` (`kubectl/v1.32.0
 * (linux/amd64) ...` → `kubectl`), without unprintable characters and cut at 128 characters.
 */
export function fieldManagerFor(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  let out = '';
  let length = 0;
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const bytes = Buffer.byteLength(ch);
    if (length >= FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    length += bytes;
  }
  return out;
}
