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

/** First position of each key (merge key value, or the scalar itself) in a list. */
function positions(list: unknown[], mergeKey: string, kind: Kind): Map<unknown, number> {
  const m = new Map<unknown, number>();
  list.forEach((v, i) => {
    const k = keyOf(v, mergeKey, kind);
    if (!m.has(k)) m.set(k, i);
  });
  return m;
}

export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: Kind,
): unknown[] {
  const live = positions(serverOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, live, mergeKey, kind);
  const right = normalizeSliceOrder(patchItems, patchOrder, positions(patchOrder, mergeKey, kind), mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      // A server-only item goes first only when both are in the live list and it is earlier.
      const li = live.get(keyOf(left[i], mergeKey, kind));
      const ri = live.get(keyOf(right[j], mergeKey, kind));
      if (li !== undefined && ri !== undefined && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Sorts `toSort` by the items' positions in `order` (stable); `$patch: delete` items go last. */
function normalizeSliceOrder(
  toSort: unknown[],
  order: unknown[],
  orderPositions: Map<unknown, number>,
  mergeKey: string,
  kind: Kind,
): unknown[] {
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
  if (items.length < 2) return toDelete.length ? [...items, ...toDelete] : items;
  const indexed = items.map((v, i) => ({ v, p: orderPositions.get(keyOf(v, mergeKey, kind)) ?? -1, i }));
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
