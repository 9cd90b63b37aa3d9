import { goType, goValue } from './go-format.js';
import { appendAndDeduplicate } from './go-slice.js';
import {
  badArgType,
  badPatchType,
  DELETE,
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  ERR_BAD_JSON_DOC,
  ERR_BAD_PRIMITIVE_LIST,
  ERR_BAD_RETAIN_KEYS,
  ERR_BAD_SET_ELEMENT_ORDER,
  ERR_NO_LIST_OF_LISTS,
  fail,
  MERGE,
  MergeFailure,
  noMergeKey,
  REPLACE,
  RETAIN_KEYS_DIRECTIVE,
  RETAIN_KEYS_STRATEGY,
  SET_ELEMENT_ORDER,
} from './strategic-directives.js';
import {
  findByMergeKey,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  splitDeleteItems,
  type Kind,
} from './strategic-list-order.js';
import { cloneJson, isJsonObject, MAX_NESTING_DEPTH, type JsonObject } from './json-value.js';
import { assertNesting, newStrategicMergePatchError } from './patch-errors.js';
import type { StrategicFieldMeta, StrategicSchema } from './strategic-schema.js';
import { goQuote } from '@plat/api-model';

/**
 * Strategic merge patch as Kubernetes applies it (k8s.io/apimachinery strategicpatch,
 * StrategicMergeMapPatch: parallel deletion lists merged, unmatched nulls ignored):
 * - maps merge key by key; null deletes; `$patch: replace | delete` on a map;
 * - lists whose field has patch strategy `merge` merge: maps by their merge key, primitives as
 *   a union; other lists are replaced; `$patch: delete | replace` items in a merging list;
 * - `$retainKeys`, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`;
 * - the order of a merged list follows the patch, then the live object, as Kubernetes orders it;
 * - values new to the object lose their nulls and directives.
 * Written from the algorithm's description and checked against kubectl's output; inputs are
 * not mutated.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: StrategicSchema): unknown {
  // Go decodes a `null` patch into a nil map, which merges nothing: the object comes back as it was.
  if (patch === null) patch = {};
  if (!isJsonObject(doc) || !isJsonObject(patch)) {
    throw newStrategicMergePatchError('bad-request', ERR_BAD_JSON_DOC);
  }
  assertNesting(doc, patch, MAX_NESTING_DEPTH);
  try {
    return mergeMap(cloneJson(doc), cloneJson(patch), schema);
  } catch (err) {
    if (err instanceof MergeFailure) throw newStrategicMergePatchError(err.kind, err.message);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Schema lookups (LookupPatchMetadataForStruct / ForSlice).

interface FieldLookup {
  readonly schema: StrategicSchema | undefined;
  readonly meta: StrategicFieldMeta | undefined;
}

const MAP_NAME = 'map';
function mapValueSchema(value: StrategicSchema | undefined): StrategicSchema {
  const meta: StrategicFieldMeta = { schema: value, shape: 'field', patchStrategies: [] };
  return { name: MAP_NAME, lookupField: () => meta };
}

function lookupField(schema: StrategicSchema | undefined, key: string): FieldLookup {
  if (!schema) return { schema: undefined, meta: undefined };
  const meta = schema.lookupField(key);
  if (!meta) fail(`unable to find api field in struct ${schema.name} for the json field ${goQuote(key)}`);
  const sub = meta.shape === 'map' ? mapValueSchema(meta.schema) : meta.schema;
  return { schema: sub, meta };
}

/** Splits `retainKeys` off the strategies; returns the remaining strategy. */
function mainStrategy(meta: StrategicFieldMeta | undefined): string {
  const s = meta?.patchStrategies ?? [];
  switch (s.length) {
    case 0:
      return '';
    case 1:
      return s[0] === RETAIN_KEYS_STRATEGY ? '' : s[0];
    case 2:
      if (s[0] === RETAIN_KEYS_STRATEGY) return s[1];
      if (s[1] === RETAIN_KEYS_STRATEGY) return s[0];
      return fail(`unexpected patch strategy: [${s.join(' ')}]`);
    default:
      return fail(`unexpected patch strategy: [${s.join(' ')}]`);
  }
}

// ---------------------------------------------------------------------------------------------
// Maps.

function mergeMap(original: JsonObject, patch: JsonObject, schema: StrategicSchema | undefined): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) return handleMapDirective(patch[DIRECTIVE], patch);

  applyRetainKeys(original, patch);
  mergeSetElementOrderLists(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    let key = patchKey;
    const patchV = patch[patchKey];
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }

    if (patchV === null) {
      delete original[key];
      continue;
    }

    const hasOriginal = Object.prototype.hasOwnProperty.call(original, key);
    const originalV = original[key];
    if (!hasOriginal || jsonTypeOf(originalV) !== jsonTypeOf(patchV)) {
      if (!isDeleteList) setNewValue(original, key, patchV);
      continue;
    }

    if (isJsonObject(originalV)) {
      const { schema: sub, meta } = lookupField(schema, key);
      const strategy = mainStrategy(meta);
      original[key] = strategy === REPLACE ? patchV : mergeMap(originalV, patchV as JsonObject, sub);
    } else if (Array.isArray(originalV)) {
      const { schema: sub, meta } = lookupField(schema, key);
      const strategy = mainStrategy(meta);
      original[key] =
        strategy === MERGE || isDeleteList
          ? mergeSlice(originalV, patchV as unknown[], sub, meta?.patchMergeKey ?? '', isDeleteList)
          : patchV;
    } else {
      original[key] = patchV;
    }
  }
  return original;
}

/** A value the original lacks (or holds with another type) is taken without nulls or directives. */
function setNewValue(original: JsonObject, key: string, patchV: unknown): void {
  discardNulls(patchV);
  const [value, keep] = removeDirectives(patchV);
  if (keep) original[key] = value;
  else delete original[key];
}

function handleMapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  return badPatchType(directive, patch);
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function discardNulls(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) discardNulls(x);
  } else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  }
}

/** Drops maps carrying `$patch` (and the fields holding them); returns [value, keep]. */
function removeDirectives(v: unknown): [unknown, boolean] {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const [nv, keep] = removeDirectives(x);
      if (keep) out.push(nv);
    }
    return [out, true];
  }
  if (isJsonObject(v)) {
    if (Object.prototype.hasOwnProperty.call(v, DIRECTIVE)) return [null, false];
    for (const k of Object.keys(v)) {
      const [nv, keep] = removeDirectives(v[k]);
      if (keep) v[k] = nv;
      else delete v[k];
    }
    return [v, true];
  }
  return [v, true];
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) fail(ERR_BAD_PRIMITIVE_LIST, 'bad-request');
    if (prefix === SET_ELEMENT_ORDER) fail(ERR_BAD_SET_ELEMENT_ORDER, 'bad-request');
    fail(`fail to find unknown prefix ${goQuote(prefix)} in ${s}\n`);
  }
  return s.slice(slash + 1);
}

/** `$retainKeys`: drop the original's keys not listed; every key the patch sets must be listed. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(list)) fail(ERR_BAD_RETAIN_KEYS, 'bad-request');
  const retained = new Set<unknown>(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained.has(k)) fail(ERR_BAD_RETAIN_KEYS, 'bad-request');
  }
  for (const k of Object.keys(original)) {
    if (!retained.has(k)) delete original[k];
  }
}

/**
 * `$setElementOrder/<list>`: merges the list (if the patch has it) and then orders the result:
 * the directive's order first, the patch's next, the live object's last.
 */
function mergeSetElementOrderLists(original: JsonObject, patch: JsonObject, schema: StrategicSchema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) badArgType('[]interface {}', order);
    const listKey = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = Object.prototype.hasOwnProperty.call(original, listKey);
    const foundPatch = Object.prototype.hasOwnProperty.call(patch, listKey);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      if (!Array.isArray(original[listKey])) badArgType('[]interface {}', original[listKey]);
      originalList = original[listKey] as unknown[];
    }
    if (foundPatch) {
      if (!Array.isArray(patch[listKey])) badArgType('[]interface {}', patch[listKey]);
      patchList = patch[listKey] as unknown[];
    }
    const { schema: sub, meta } = lookupField(schema, listKey);
    const strategy = mainStrategy(meta);
    const mergeKey = meta?.patchMergeKey ?? '';
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    let merged: unknown[];
    // Kubernetes orders by the live list as its Go slice reads after the merge: deleting items
    // shifts the rest left and the first items appended take the freed slots (the merge reuses
    // the slice's array). Positions of new items matter for the interleaving below.
    let liveOrder = originalList;
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as unknown[];
    else if (foundOriginal && foundPatch) {
      if (strategy === MERGE) {
        const aliased: { order?: unknown[] } = {};
        merged = mergeSlice(originalList, patchList, sub, mergeKey, false, aliased);
        liveOrder = aliased.order ?? originalList;
      } else {
        merged = patchList;
      }
    } else continue;

    const [patchItems, serverOnly] = mergeKey
      ? partitionMaps(merged, order, mergeKey)
      : partitionPrimitives(merged, order);
    const kind = sliceElementKind(originalList, patchList);
    original[listKey] = normalizeElementOrder(patchItems, serverOnly, order, liveOrder, mergeKey, kind);
    delete patch[listKey];
  }
}

function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? splitDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    if (isJsonObject(nonDelete[p]) && Object.prototype.hasOwnProperty.call(nonDelete[p], DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length && o >= order.length) {
    fail(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isJsonObject(left)) badArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) badArgType('map[string]interface {}', right);
  if (!Object.prototype.hasOwnProperty.call(left, mergeKey)) noMergeKey(left, mergeKey);
  if (!Object.prototype.hasOwnProperty.call(right, mergeKey)) noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

// ---------------------------------------------------------------------------------------------
// Lists.

function mergeSlice(
  original: unknown[],
  patch: unknown[],
  itemSchema: StrategicSchema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  aliased?: { order?: unknown[] },
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  let serverOrder = original;
  let patchOrder = patch;
  if (kind !== 'map') {
    if (isDeleteList) {
      const toDelete = new Set(patch);
      return original.filter((v) => !toDelete.has(v));
    }
    const appended = appendAndDeduplicate(original, patch);
    merged = appended.merged;
    serverOrder = appended.liveAfter;
    if (aliased) aliased.order = serverOrder;
  } else {
    if (!mergeKey) fail(`cannot merge lists without merge key for ${itemSchema ? 'struct' : 'interface'}`);
    let replaced: boolean;
    [serverOrder, patchOrder, replaced] = applyListDirectives(original, patch, mergeKey);
    merged = mergeListOfMaps(serverOrder, patchOrder, mergeKey, itemSchema);
    if (aliased && !replaced) {
      const freed = original.length - serverOrder.length;
      aliased.order = [...serverOrder, ...merged.slice(serverOrder.length, serverOrder.length + freed)];
    }
  }
  const [patchItems, serverOnly] = mergeKey
    ? partitionMaps(merged, patchOrder, mergeKey)
    : partitionPrimitives(merged, patchOrder);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

/** The kind of every element (maps or scalars); lists of lists and mixed kinds are refused. */
function sliceElementKind(...slices: unknown[][]): Kind {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goType(v);
      if (prev === undefined) {
        prev = t;
        if (Array.isArray(v)) fail(ERR_NO_LIST_OF_LISTS, 'invalid');
      } else if (prev !== t) {
        fail(`list element types are not identical: ${goValue(slices)}`);
      }
    }
  }
  if (prev === undefined) fail('no elements in any of the given slices');
  return prev === 'map[string]interface {}' ? 'map' : 'scalar';
}

/** `$patch: delete` items remove their entries; `$patch: replace` makes the patch the list. */
function applyListDirectives(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[], boolean] {
  const plain: unknown[] = [];
  let replace = false;
  let current = original;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(item, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === DELETE) {
      if (!Object.prototype.hasOwnProperty.call(item, mergeKey)) noMergeKey(item, mergeKey);
      const value = item[mergeKey];
      current = current.filter((x) => {
        if (!isJsonObject(x)) fail(`value for key ${current.indexOf(x)} is not a map.`);
        return !(Object.prototype.hasOwnProperty.call(x, mergeKey) && x[mergeKey] === value);
      });
    } else if (directive === REPLACE) {
      replace = true;
    } else if (directive === MERGE) {
      fail('merging lists cannot yet be specified in the patch');
    } else {
      badPatchType(directive, item);
    }
  }
  return replace ? [plain, [], true] : [current, plain, false];
}

function mergeListOfMaps(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  itemSchema: StrategicSchema | undefined,
): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(item, mergeKey)) noMergeKey(item, mergeKey);
    const i = findByMergeKey(out, mergeKey, item[mergeKey]);
    if (i >= 0) out[i] = mergeMap(out[i] as JsonObject, item, itemSchema);
    else out.push(v);
  }
  return out;
}
