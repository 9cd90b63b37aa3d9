import { goType, goValue } from './go-format.js';
import type { JsonObject } from './json-value.js';
import type { StrategicErrorKind } from './patch-errors.js';

// Strategic merge patch's directives and strategies (k8s.io/apimachinery strategicpatch), and its
// failures with Kubernetes' texts (k8s.io/apimachinery/pkg/util/mergepatch).

export const DIRECTIVE = '$patch';
export const REPLACE = 'replace';
export const MERGE = 'merge';
export const DELETE = 'delete';
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const RETAIN_KEYS_STRATEGY = 'retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

// Kubernetes' error texts (k8s.io/apimachinery/pkg/util/mergepatch).
export const ERR_BAD_JSON_DOC = 'invalid JSON document';
export const ERR_NO_LIST_OF_LISTS = 'lists of lists are not supported';
export const ERR_BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const ERR_BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const ERR_BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

export class MergeFailure extends Error {
  constructor(
    readonly kind: StrategicErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function fail(message: string, kind: StrategicErrorKind = 'other'): never {
  throw new MergeFailure(kind, message);
}
export function noMergeKey(m: JsonObject, key: string): never {
  fail(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
}
export function badArgType(expected: string, actual: unknown): never {
  fail(`expected a ${expected}, but received a ${goType(actual)}`);
}
export function badPatchType(t: unknown, m: JsonObject): never {
  const shown = typeof t === 'string' ? t : `%!s(${goType(t)}=${goValue(t)})`;
  fail(`unknown patch type: ${shown} in map: ${goValue(m)}`);
}
