import { assertNesting, newPatchDecodeError } from './patch-errors.js';
import { cloneJson, isJsonObject, MAX_NESTING_DEPTH, type JsonObject } from './json-value.js';

/**
 * RFC 7396 JSON merge patch with the behaviour of evanphx/json-patch's MergePatch, which
 * kube-apiserver and kubectl use:
 * - an object patch merges member by member, null removes a member, nulls inside newly added
 *   objects are dropped;
 * - an array patch replaces the document (nulls inside its objects dropped);
 * - a patch that is `null` or a scalar is refused ("Invalid JSON Patch", 400), where RFC 7396
 *   would return the patch itself — Kubernetes never replaces a whole object with a scalar.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  assertNesting(doc, patch, MAX_NESTING_DEPTH);
  if (Array.isArray(patch)) return pruneArrayNulls(cloneJson(patch));
  if (!isJsonObject(patch)) throw newPatchDecodeError('Invalid JSON Patch');
  if (!isJsonObject(doc)) return pruneObjectNulls(cloneJson(patch));
  const out = cloneJson(doc);
  mergeObjects(out, patch);
  return out;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === null) {
      delete doc[k];
      continue;
    }
    const cur = doc[k];
    if (cur === undefined || cur === null) {
      doc[k] = pruneNulls(cloneJson(pv));
    } else if (!isJsonObject(cur)) {
      doc[k] = pruneNulls(cloneJson(pv));
    } else if (!isJsonObject(pv)) {
      // The library keeps a non-object patch value as it is, nulls included.
      doc[k] = cloneJson(pv);
    } else {
      mergeObjects(cur, pv);
    }
  }
}

function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return pruneArrayNulls(v);
  if (isJsonObject(v)) return pruneObjectNulls(v);
  return v;
}

function pruneObjectNulls(o: JsonObject): JsonObject {
  for (const k of Object.keys(o)) {
    if (o[k] === null) delete o[k];
    else pruneNulls(o[k]);
  }
  return o;
}

// Null elements stay; objects inside lose their null members.
function pruneArrayNulls(a: unknown[]): unknown[] {
  for (const v of a) if (v !== null) pruneNulls(v);
  return a;
}
