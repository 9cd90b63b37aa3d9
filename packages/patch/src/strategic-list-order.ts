import { badArgType, DELETE, DIRECTIVE, fail, noMergeKey } from './strategic-directives.js';
import { isJsonObject } from './json-value.js';

/** Whether a list holds maps (merged by key) or scalars. */
export type Kind = 'map' | 'scalar';

/** The index of the map whose merge key has `value`; fails on an item that is not a map. */
export function findByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (!isJsonObject(x)) fail(`value for key ${i} is not a map.`);
    if (Object.prototype.hasOwnProperty.call(x, mergeKey) && x[mergeKey] === value) return i;
  }
  return -1;
}

export function partitionPrimitives(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch = new Set(by);
  const patchItems: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (inPatch.has(v) ? patchItems : serverOnly).push(v);
  return [patchItems, serverOnly];
}

export function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const patchItems: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) badArgType('map[string]interface {}', v);
    if (!Object.prototype.hasOwnProperty.call(v, mergeKey)) noMergeKey(v, mergeKey);
    (findByMergeKey(by, mergeKey, v[mergeKey]) >= 0 ? patchItems : serverOnly).push(v);
  }
  return [patchItems, serverOnly];
}

// ---------------------------------------------------------------------------------------------
// Ordering (preserve-order-in-strategic-merge-patch design): patch items keep the patch's order,
// server-only items the live order, and the two are interleaved by their live positions.

function keyOf(item: unknown, mergeKey: string, kind: Kind): unknown {
  if (kind !== 'map') return item;
  return isJsonObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: Kind): number {
  const k = keyOf(item, mergeKey, kind);
  for (let i = 0; i < list.length; i++) if (keyOf(list[i], mergeKey, kind) === k) return i;
  return -1;
}

export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: Kind,
): unknown[] {
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const list of [toSort, order]) {
      for (const v of list) {
        if (!isJsonObject(v)) badArgType('map[string]interface {}', v);
        if (!Object.prototype.hasOwnProperty.call(v, mergeKey)) noMergeKey(v, mergeKey);
      }
    }
    [items, toDelete] = splitDeleteItems(toSort);
  }
  const positions = items.map((v) => indexIn(order, v, mergeKey, kind));
  const indexed = items.map((v, i) => ({ v, p: positions[i], i }));
  indexed.sort((a, b) => (a.p >= 0 && b.p >= 0 ? a.p - b.p : a.i - b.i));
  return [...indexed.map((x) => x.v), ...toDelete];
}

export function splitDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const del: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) badArgType('map[string]interface {}', v);
    (v[DIRECTIVE] === DELETE ? del : keep).push(v);
  }
  return [keep, del];
}
