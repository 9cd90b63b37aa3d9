import type { ApiObject, ManagedFieldsEntry } from '@plat/api-model';
import type { OpenApiSchema } from './openapi/types.js';
import type { SchemaSet } from './schema-walk.js';

/**
 * managedFields for Update operations (Kubernetes' field manager without server-side apply):
 * each manager owns the fields it set or changed, recorded as a FieldsV1 tree
 * (`{"f:spec": {"f:trustBundle": {}}}`). Maps, set-lists and map-lists also own their own node,
 * written `".": {}`. Identity and system fields (apiVersion, kind, metadata.name, uid,
 * resourceVersion, creationTimestamp, generation, managedFields...) are never owned.
 */

type Segment = string; // "f:name", "k:{...}", "v:...", "."
type FieldSet = Map<string, string>; // JSON of the segment path -> JSON of the leaf value ("" for nodes)

const strippedTop = new Set(['apiVersion', 'kind']);
const strippedMeta = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'selfLink',
]);

function collect(
  value: unknown,
  schema: OpenApiSchema | undefined,
  set: SchemaSet,
  path: Segment[],
  out: FieldSet,
  depth: number,
): void {
  const s = set.resolve(schema);
  if (depth > 64) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const isMap = !!s && !s.properties && typeof s.additionalProperties === 'object';
    const isFreeForm = !s || (!s.properties && !isMap);
    if (isFreeForm) {
      out.set(JSON.stringify(path), JSON.stringify(value));
      return;
    }
    if (isMap) out.set(JSON.stringify([...path, '.']), '');
    for (const [key, child] of Object.entries(obj)) {
      if (depth === 0 && strippedTop.has(key)) continue;
      if (depth === 1 && path[0] === 'f:metadata' && strippedMeta.has(key)) continue;
      const childSchema = isMap ? (s!.additionalProperties as OpenApiSchema) : s!.properties?.[key];
      collect(child, childSchema, set, [...path, `f:${key}`], out, depth + 1);
    }
    return;
  }
  if (Array.isArray(value) && s) {
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') {
      out.set(JSON.stringify([...path, '.']), '');
      for (const item of value) out.set(JSON.stringify([...path, `v:${JSON.stringify(item)}`]), '');
      return;
    }
    if (listType === 'map') {
      const keys = (s['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [];
      out.set(JSON.stringify([...path, '.']), '');
      for (const item of value) {
        if (item === null || typeof item !== 'object') continue;
        const k: Record<string, unknown> = {};
        for (const key of keys) k[key] = (item as Record<string, unknown>)[key];
        const itemPath = [...path, `k:${JSON.stringify(k)}`];
        out.set(JSON.stringify([...itemPath, '.']), '');
        collect(item, s.items, set, itemPath, out, depth + 1);
      }
      return;
    }
  }
  out.set(JSON.stringify(path), JSON.stringify(value));
}

export function fieldSetOf(obj: ApiObject, schema: OpenApiSchema, set: SchemaSet): FieldSet {
  const out: FieldSet = new Map();
  collect(obj, schema, set, [], out, 0);
  return out;
}

/** FieldsV1 tree → flat path keys. */
function fromFieldsV1(tree: unknown, prefix: Segment[], out: Set<string>): void {
  if (!tree || typeof tree !== 'object') return;
  const entries = Object.entries(tree as Record<string, unknown>);
  if (entries.length === 0) {
    out.add(JSON.stringify(prefix));
    return;
  }
  for (const [seg, child] of entries) {
    if (seg === '.') out.add(JSON.stringify([...prefix, '.']));
    else fromFieldsV1(child, [...prefix, seg], out);
  }
}

/** Flat path keys → FieldsV1 tree, keys sorted as Kubernetes serialises them. */
function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of paths) {
    const segs = JSON.parse(key) as string[];
    let node = root;
    for (const seg of segs) {
      node[seg] ??= {};
      node = node[seg] as Record<string, unknown>;
    }
  }
  const sort = (n: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.keys(n)
        .sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0))
        .map((k) => [k, sort(n[k] as Record<string, unknown>)]),
    );
  return sort(root);
}

export interface ManagedFieldsUpdate {
  manager: string;
  apiVersion: string;
  /** The time to record, RFC 3339 with second precision. */
  now: string;
  schema: OpenApiSchema;
  schemas: SchemaSet;
}

/**
 * Computes the managedFields of `next` written by `opts.manager` with an Update operation,
 * given the previous object (`undefined` for a create).
 */
export function updateManagedFields(
  next: ApiObject,
  prev: ApiObject | undefined,
  previousEntries: ManagedFieldsEntry[],
  opts: ManagedFieldsUpdate,
): ManagedFieldsEntry[] {
  const nextSet = fieldSetOf(next, opts.schema, opts.schemas);
  const prevSet = prev ? fieldSetOf(prev, opts.schema, opts.schemas) : new Map<string, string>();
  const changed = new Set<string>();
  for (const [k, v] of nextSet) if (prevSet.get(k) !== v) changed.add(k);
  const removed = new Set<string>();
  for (const k of prevSet.keys()) if (!nextSet.has(k)) removed.add(k);

  const entries: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const entry of previousEntries) {
    const isMine =
      entry.manager === opts.manager && entry.operation === 'Update' && entry.apiVersion === opts.apiVersion && !entry.subresource;
    const owned = new Set<string>();
    fromFieldsV1(entry.fieldsV1, [], owned);
    for (const k of [...owned]) {
      if (removed.has(k) || (!isMine && changed.has(k))) owned.delete(k);
    }
    if (isMine) {
      const before = owned.size;
      for (const k of changed) owned.add(k);
      mine = { ...entry, fieldsV1: toFieldsV1(owned) };
      if (changed.size > 0 || owned.size !== before) mine.time = opts.now;
      if (owned.size) entries.push(mine);
      continue;
    }
    if (owned.size) entries.push({ ...entry, fieldsV1: toFieldsV1(owned) });
  }
  if (!mine && changed.size > 0) {
    entries.push({
      manager: opts.manager,
      operation: 'Update',
      apiVersion: opts.apiVersion,
      time: opts.now,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(changed),
    });
  }
  return entries;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
