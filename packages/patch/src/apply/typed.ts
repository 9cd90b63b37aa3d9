import { encodeJson, goQuote } from '@plat/api-model';
import { deepEqualJson, isJsonObject, type JsonObject } from '../json-value.js';
import { FieldSet, encodePathElement, keyOf, pathString, type FieldPath, type PathElement } from './fieldpath.js';
import { DEDUCED, LEAF, type ApplyType, type ListType } from './schema.js';

/**
 * Schema-driven walks over decoded JSON values: the field set a value sets, the comparison of two
 * values, the structured merge of an applied configuration into a live object, and the removal
 * of a field set from a value (structured-merge-diff `typed`: ToFieldSet, Compare, Merge,
 * RemoveItems).
 *
 * A walk is strict (an applied configuration: undeclared fields, missing list keys and duplicate
 * items are errors) or lenient (a stored object: such parts are owned as a whole).
 */

/** One problem with a value against its schema, as structured-merge-diff words it. */
export interface TypeError {
  readonly path: FieldPath;
  readonly message: string;
}

/** structured-merge-diff's ValidationErrors text: one `path: message`, or a list under `errors:`. */
export function typeErrorsText(errors: readonly TypeError[]): string {
  const lines = errors.map((e) => `${pathString(e.path)}: ${e.message}`);
  return lines.length === 1 ? lines[0] : ['errors:', ...lines.map((l) => `  ${l}`)].join('\n');
}

export class TypedContext {
  readonly errors: TypeError[] = [];
  constructor(readonly strict: boolean) {}

  fail(path: FieldPath, message: string): void {
    if (this.strict) this.errors.push({ path: [...path], message });
  }
}

type Node =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'map'; readonly struct: boolean; child(name: string, ctx: TypedContext, path: FieldPath): ApplyType; declared(name: string): boolean }
  | { readonly kind: 'list'; readonly list: ListType };

const LEAF_NODE: Node = { kind: 'leaf' };

/** What a value of type `t` is for the walks; `v` only decides for the deduced type. */
function classify(t: ApplyType, v: unknown): Node {
  switch (t.kind) {
    case 'leaf':
      return LEAF_NODE;
    case 'deduced':
      return isJsonObject(v)
        ? { kind: 'map', struct: false, child: () => DEDUCED, declared: () => false }
        : LEAF_NODE;
    case 'struct':
      if (t.atomic) return LEAF_NODE;
      return {
        kind: 'map',
        struct: true,
        child: (name, ctx, path) => {
          const f = t.field(name);
          if (f) return f;
          ctx.fail(path, 'field not declared in schema');
          return LEAF;
        },
        declared: (name) => t.field(name) !== undefined,
      };
    case 'map':
      if (t.atomic) return LEAF_NODE;
      return { kind: 'map', struct: false, child: () => t.value, declared: () => false };
    case 'list':
      return t.listType === 'atomic' ? LEAF_NODE : { kind: 'list', list: t };
  }
}

/** The node of a present value, checking its shape; a value of the wrong shape is a leaf. */
function nodeOf(t: ApplyType, v: unknown, ctx: TypedContext, path: FieldPath): Node {
  const n = classify(t, v);
  if (v === null || v === undefined) return n;
  if (n.kind === 'map' && !isJsonObject(v)) {
    ctx.fail(path, `expected map, got ${encodeJson(v)}`);
    return LEAF_NODE;
  }
  if (n.kind === 'list' && !Array.isArray(v)) {
    ctx.fail(path, `expected list, got ${encodeJson(v)}`);
    return LEAF_NODE;
  }
  return n;
}

function asObject(v: unknown): JsonObject {
  return isJsonObject(v) ? v : {};
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The path element naming a list item: its keys in a map list, its value in a set. */
export function listItemElement(
  list: ListType,
  item: unknown,
  index: number,
  ctx: TypedContext,
  path: FieldPath,
): PathElement {
  if (list.listType === 'map') {
    if (!isJsonObject(item)) {
      ctx.fail(path, `element ${index}: expected map, got ${encodeJson(item)}`);
      return { index };
    }
    const fields: Record<string, unknown> = {};
    for (const k of list.keys) {
      if (Object.prototype.hasOwnProperty.call(item, k) && item[k] !== null) fields[k] = item[k];
      else ctx.fail(path, `element ${index}: associative list with keys has an element that omits key field ${goQuote(k)} (and doesn't have default value)`);
    }
    return Object.keys(fields).length ? { key: keyOf(fields) } : { index };
  }
  if (isJsonObject(item)) ctx.fail(path, `element ${index}: associative list without keys has an element that's a map type`);
  else if (Array.isArray(item)) ctx.fail(path, `element ${index}: associative list without keys has an element that's a list type`);
  return { value: item };
}

interface IndexedItem {
  readonly pe: PathElement;
  readonly id: string;
  readonly value: unknown;
  /**
   * Every occurrence, when a stored list holds the item more than once (Kubernetes tolerates
   * that in live objects and treats such an item as one atomic unit).
   */
  readonly duplicates?: unknown[];
}

/**
 * The items of a list, once per key, in first-occurrence order. Repeated keys are an error when
 * strict; otherwise the item carries all its occurrences.
 */
function indexList(list: ListType, items: unknown[], ctx: TypedContext, path: FieldPath): IndexedItem[] {
  const out: IndexedItem[] = [];
  const byId = new Map<string, number>();
  items.forEach((value, i) => {
    const pe = listItemElement(list, value, i, ctx, path);
    const id = encodePathElement(pe);
    const at = byId.get(id);
    if (at !== undefined) {
      ctx.fail(path, `duplicate entries for key ${pathString([pe])}`);
      const first = out[at];
      out[at] = { ...first, duplicates: [...(first.duplicates ?? [first.value]), value] };
      return;
    }
    byId.set(id, out.length);
    out.push({ pe, id, value });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// ToFieldSet

/** The fields a value sets: its leaves, its list items, and map keys (structured-merge-diff ToFieldSet). */
export function toFieldSet(value: unknown, t: ApplyType, ctx: TypedContext): FieldSet {
  const out = new FieldSet();
  collectFields(value, t, [], out, ctx);
  return out;
}

function collectFields(v: unknown, t: ApplyType, path: PathElement[], out: FieldSet, ctx: TypedContext): void {
  const n = nodeOf(t, v, ctx, path);
  if (n.kind === 'leaf') {
    out.insertMutable(path);
    return;
  }
  if (n.kind === 'map') {
    const obj = asObject(v);
    for (const k of Object.keys(obj)) {
      const child = obj[k];
      path.push({ field: k });
      collectFields(child, n.child(k, ctx, path), path, out, ctx);
      if (child === null || (isJsonObject(child) && Object.keys(child).length === 0) || !n.declared(k)) {
        out.insertMutable(path);
      }
      path.pop();
    }
    return;
  }
  // A set or map list: each item is owned by itself, and a map list's item field by field.
  // A repeated item is owned as a whole, not field by field.
  for (const item of indexList(n.list, asArray(v), ctx, path)) {
    path.push(item.pe);
    if (!item.duplicates) collectFields(item.value, n.list.item, path, out, ctx);
    out.insertMutable(path);
    path.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// Compare

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs` (structured-merge-diff Compare): leaves added, removed or
 * modified, and containers added or removed as a whole. Two empty (or null) containers compare
 * as leaves, so `{}` versus null is a modification.
 */
export function compare(lhs: unknown, rhs: unknown, t: ApplyType, ctx: TypedContext): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareNode(lhs, rhs, t, [], c, ctx);
  return c;
}

function isEmptyContainer(v: unknown): boolean {
  return (
    v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0)
  );
}

function compareNode(
  l: unknown,
  r: unknown,
  t: ApplyType,
  path: PathElement[],
  c: { added: FieldSet; modified: FieldSet; removed: FieldSet },
  ctx: TypedContext,
): void {
  let nl = l === undefined ? undefined : nodeOf(t, l, ctx, path);
  let nr = r === undefined ? undefined : nodeOf(t, r, ctx, path);
  // The deduced type decides per value: an object on one side and not on the other is a leaf.
  if (nl && nr && nl.kind !== nr.kind && l !== null && r !== null) nl = nr = LEAF_NODE;
  const n = (nr ?? nl)!;
  const leaf = n.kind === 'leaf' || (nl?.kind ?? n.kind) === 'leaf' || (isEmptyContainer(l) && isEmptyContainer(r));
  if (leaf) {
    if (l === undefined) c.added.insertMutable(path);
    else if (r === undefined) c.removed.insertMutable(path);
    else if (!deepEqualJson(l, r)) c.modified.insertMutable(path);
    return;
  }
  if (n.kind === 'map') {
    const lo = asObject(l);
    const ro = asObject(r);
    const keys = new Set([...Object.keys(lo), ...Object.keys(ro)]);
    for (const k of keys) {
      path.push({ field: k });
      compareNode(
        Object.prototype.hasOwnProperty.call(lo, k) ? lo[k] : undefined,
        Object.prototype.hasOwnProperty.call(ro, k) ? ro[k] : undefined,
        n.child(k, ctx, path),
        path,
        c,
        ctx,
      );
      path.pop();
    }
  } else if (n.kind === 'list') {
    const li = indexList(n.list, asArray(l), ctx, path);
    const ri = indexList(n.list, asArray(r), ctx, path);
    const lById = new Map(li.map((i) => [i.id, i]));
    const rIds = new Set(ri.map((i) => i.id));
    for (const item of ri) {
      path.push(item.pe);
      const left = lById.get(item.id);
      if (item.duplicates || left?.duplicates) compareRepeated(left, item, path, c);
      else compareNode(left?.value, item.value, n.list.item, path, c, ctx);
      path.pop();
    }
    for (const item of li) {
      if (rIds.has(item.id)) continue;
      path.push(item.pe);
      if (item.duplicates) c.removed.insertMutable(path);
      else compareNode(item.value, undefined, n.list.item, path, c, ctx);
      path.pop();
    }
  }
  if (l === undefined) c.added.insertMutable(path);
  else if (r === undefined) c.removed.insertMutable(path);
}

/** A repeated item on either side compares as one leaf: all its occurrences together. */
function compareRepeated(
  l: IndexedItem | undefined,
  r: IndexedItem,
  path: PathElement[],
  c: { added: FieldSet; modified: FieldSet; removed: FieldSet },
): void {
  if (!l) c.added.insertMutable(path);
  else if (!deepEqualJson(l.duplicates ?? [l.value], r.duplicates ?? [r.value])) c.modified.insertMutable(path);
}

// ---------------------------------------------------------------------------------------------
// Merge

/**
 * The structured merge of `rhs` (an applied configuration) into `lhs` (the live object):
 * granular maps merge key by key, set and map lists item by item (keeping the live order, with
 * the applied items in the applied order), and anything else is replaced by `rhs`.
 * A struct field that ends up null is left out, as a typed object would drop it.
 */
export function merge(lhs: unknown, rhs: unknown, t: ApplyType, ctx: TypedContext): unknown {
  return mergeNode(lhs, rhs, t, [], ctx);
}

function mergeNode(l: unknown, r: unknown, t: ApplyType, path: PathElement[], ctx: TypedContext): unknown {
  if (r === undefined) return l;
  const nr = nodeOf(t, r, ctx, path);
  if (nr.kind === 'leaf') return r;
  const nl = l === undefined || l === null ? nr : nodeOf(t, l, ctx, path);
  if (nl.kind !== nr.kind) return r;
  if (r === null && isEmptyContainer(l)) return r;
  if (nr.kind === 'map') {
    const lo = asObject(l);
    const ro = asObject(r);
    const out: JsonObject = {};
    const keys = new Set([...Object.keys(lo), ...Object.keys(ro)]);
    for (const k of keys) {
      path.push({ field: k });
      const hasL = Object.prototype.hasOwnProperty.call(lo, k);
      const hasR = Object.prototype.hasOwnProperty.call(ro, k);
      const v = hasR ? mergeNode(hasL ? lo[k] : undefined, ro[k], nr.child(k, ctx, path), path, ctx) : lo[k];
      path.pop();
      if (v === null && nr.struct) continue;
      out[k] = v;
    }
    return out;
  }
  if (nr.kind === 'list') return mergeList(asArray(l), asArray(r), nr.list, path, ctx);
  return r;
}

/**
 * Item order of a merged set or map list, as Kubernetes keeps it: live items stay where they
 * are, applied items come in the applied order, and items in both move to follow the applied
 * order (a live item that the configuration also lists waits until the configuration reaches it).
 */
function mergeList(l: unknown[], r: unknown[], list: ListType, path: PathElement[], ctx: TypedContext): unknown[] {
  const left = indexList(list, l, new TypedContext(false), path);
  const right = indexList(list, r, ctx, path);
  const leftById = new Map(left.map((i) => [i.id, i]));
  const rightIds = new Set(right.map((i) => i.id));
  const sharedInRightOrder = right.filter((i) => leftById.has(i.id)).map((i) => i.id);
  let nextShared = 0;
  const done = new Set<string>();
  const out: unknown[] = [];
  const emit = (id: string, pe: PathElement, lv: unknown, rv: unknown): void => {
    path.push(pe);
    // The configuration's item replaces all occurrences of a repeated live item.
    out.push(mergeNode(leftById.get(id)?.duplicates ? undefined : lv, rv, list.item, path, ctx));
    path.pop();
    done.add(id);
    if (sharedInRightOrder[nextShared] === id) nextShared++;
  };
  let li = 0;
  let ri = 0;
  while (li < left.length || ri < right.length) {
    if (li < left.length) {
      const item = left[li];
      if (ri < right.length && right[ri].id === item.id) {
        emit(item.id, item.pe, item.value, right[ri].value);
        li++;
        ri++;
        continue;
      }
      if (!rightIds.has(item.id)) {
        // Untouched by the configuration: kept, every occurrence of a repeated item too.
        out.push(...(item.duplicates ?? [item.value]));
        li++;
        continue;
      }
      if (done.has(item.id) || (ri < right.length && sharedInRightOrder[nextShared] !== item.id)) {
        li++;
        continue;
      }
    }
    if (ri < right.length) {
      const item = right[ri];
      emit(item.id, item.pe, leftById.get(item.id)?.value, item.value);
      ri++;
    } else {
      li++;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// RemoveItems

/**
 * `value` without the paths that are members of `set` (each with everything below it). A map or
 * list left with nothing becomes null, as in structured-merge-diff (the typed object then drops
 * it: see `dropNullFields`).
 */
export function removeItems(value: unknown, t: ApplyType, set: FieldSet): unknown {
  if (set.isEmpty()) return value;
  const ctx = new TypedContext(false);
  return removeNode(value, t, set, [], ctx);
}

function removeNode(v: unknown, t: ApplyType, set: FieldSet, path: PathElement[], ctx: TypedContext): unknown {
  const n = nodeOf(t, v, ctx, path);
  if (n.kind === 'map' && isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const pe = { field: k };
      if (set.hasMember(pe)) continue;
      const sub = set.withPrefix(pe);
      out[k] = sub && !sub.isEmpty() ? removeNode(v[k], n.child(k, ctx, path), sub, [...path, pe], ctx) : v[k];
    }
    return Object.keys(out).length ? out : null;
  }
  if (n.kind === 'list' && Array.isArray(v)) {
    const out: unknown[] = [];
    v.forEach((item, i) => {
      const pe = listItemElement(n.list, item, i, ctx, path);
      if (set.hasMember(pe)) return;
      const sub = set.withPrefix(pe);
      out.push(sub && !sub.isEmpty() ? removeNode(item, n.list.item, sub, [...path, pe], ctx) : item);
    });
    return out.length ? out : null;
  }
  return v;
}

/** `value` without struct fields that are null, at any depth: what a typed object keeps. */
export function dropNullFields(value: unknown, t: ApplyType): unknown {
  const ctx = new TypedContext(false);
  const walk = (v: unknown, type: ApplyType, path: PathElement[]): unknown => {
    const n = nodeOf(type, v, ctx, path);
    if (n.kind === 'map' && isJsonObject(v)) {
      const out: JsonObject = {};
      for (const k of Object.keys(v)) {
        if (v[k] === null && n.struct) continue;
        out[k] = walk(v[k], n.child(k, ctx, path), path);
      }
      return out;
    }
    if (n.kind === 'list' && Array.isArray(v)) return v.map((item) => walk(item, n.list.item, path));
    return v;
  };
  return walk(value, t, []);
}

// ---------------------------------------------------------------------------------------------
// EnsureNamedFieldsAreMembers

/**
 * `set` plus every struct field that has paths below it, as a member: a manager that owned
 * `.spec.x.y` is taken to own the struct field `.spec` and `.spec.x` too, so that pruning can
 * remove them (structured-merge-diff EnsureNamedFieldsAreMembers). Map keys and list items are
 * left as they are.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: ApplyType): FieldSet {
  const out = set.copy();
  addNamedFields(set, t, [], out);
  return out;
}

function addNamedFields(set: FieldSet, t: ApplyType, path: PathElement[], out: FieldSet): void {
  for (const { pe, set: sub } of set.childEntries()) {
    if (sub.isEmpty()) continue;
    let childType: ApplyType = LEAF;
    if ('field' in pe) {
      if (t.kind === 'struct' && !t.atomic) {
        const f = t.field(pe.field);
        if (f) {
          out.insertMutable([...path, pe]);
          childType = f;
        }
      } else if (t.kind === 'map') childType = t.value;
      else if (t.kind === 'deduced') childType = DEDUCED;
    } else if (t.kind === 'list') {
      childType = t.item;
    }
    path.push(pe);
    addNamedFields(sub, childType, path, out);
    path.pop();
  }
}
