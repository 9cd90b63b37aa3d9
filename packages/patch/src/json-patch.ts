import { goQuote, newRequestEntityTooLarge } from '@plat/api-model';
import { assertNesting, newJsonPatchApplyError, newPatchDecodeError } from './patch-errors.js';
import { cloneJson, deepEqualJson, isJsonObject, MAX_NESTING_DEPTH, type JsonObject } from './json-value.js';

/**
 * RFC 6902 JSON patch with the semantics of evanphx/json-patch v4, the library kube-apiserver and
 * kubectl use, so that a patch succeeds or fails here exactly as it does against Kubernetes:
 * - `replace` of a missing object member sets it (the library only checks array bounds);
 * - negative array indices count from the end;
 * - `add` and `replace` without `value` write null; a null member counts as absent, and `copy`
 *   from an absent member of an existing object copies null;
 * - `replace` and `test` at path "" act on the whole document (a non-container value: no-op);
 * - errors name the failing operation and path, with the library's wording.
 * fast-json-patch was considered and not used: it differs on each point above and words its
 * errors differently, which would make `clientctl` and the server disagree with kubectl.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, opts: JsonPatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch);
  if (opts.maxOperations !== undefined && ops.length > opts.maxOperations) {
    throw newRequestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${opts.maxOperations}, got ${ops.length}`,
    );
  }
  if (!isJsonObject(doc) && !Array.isArray(doc)) {
    throw newJsonPatchApplyError(`json: cannot unmarshal ${goJsonKind(doc)} into Go value of type jsonpatch.partialDoc`);
  }
  assertNesting(doc, patch, MAX_NESTING_DEPTH);
  const root: Container = { value: cloneJson(doc) as JsonObject | unknown[], copied: 0, maxCopyBytes: opts.maxCopyBytes ?? 0 };
  for (const op of ops) {
    const error = applyOperation(root, op);
    if (error !== undefined) throw newJsonPatchApplyError(kubectlWording(error));
  }
  return root.value;
}

/**
 * kubectl rewords the library's "doc is missing key" (a replace at an index past the end) as
 * "Object to be patched is missing field (...)" (cmd/patch getPatchedJSON); we print what it prints.
 */
function kubectlWording(message: string): string {
  if (!message.includes('doc is missing key')) return message;
  return `Object to be patched is missing field (${message.slice(message.indexOf('key:') + 5)})`;
}

/** Maximum operations kube-apiserver accepts in one JSON patch (handlers/patch.go). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** kube-apiserver's default limit on the bytes `copy` operations may add (JSONPatchMaxCopyBytes). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/**
 * Limits a server applies; `kubectl patch --local` applies none, and neither do we by default.
 * kube-apiserver: `{ maxOperations: MAX_JSON_PATCH_OPERATIONS, maxCopyBytes: MAX_JSON_PATCH_COPY_BYTES }`.
 */
export interface JsonPatchOptions {
  /** More operations fail with 413 before any is applied. */
  readonly maxOperations?: number;
  /** Total size of the values `copy` operations duplicate (as compact JSON); 0 or absent: no limit. */
  readonly maxCopyBytes?: number;
}

type Operation = Readonly<Record<string, unknown>>;

/** Validates the patch's shape as the library's decoder does: an array of objects. */
export function decodeJsonPatch(patch: unknown): Operation[] {
  // `null` decodes into a nil Patch: no operations, the document comes back as it was.
  if (patch === null) return [];
  if (!Array.isArray(patch)) {
    throw newPatchDecodeError(`json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (op !== null && !isJsonObject(op)) {
      throw newPatchDecodeError(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  return patch.map((op) => (op ?? {}) as Operation);
}

/** The document root is held in a box so that operations can treat it like any container. */
interface Container {
  value: JsonObject | unknown[];
  /** Bytes duplicated by `copy` so far, and the limit (0: none). */
  copied: number;
  readonly maxCopyBytes: number;
}
type Parent = JsonObject | unknown[];

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

function applyOperation(root: Container, op: Operation): string | undefined {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add':
      return add(root, op);
    case 'remove':
      return remove(root, op);
    case 'replace':
      return replace(root, op);
    case 'move':
      return move(root, op);
    case 'test':
      return test(root, op);
    case 'copy':
      return copy(root, op);
    default:
      return `Unexpected kind: ${kind}`;
  }
}

/** Reads `path` or `from`: absent → the library's "missing" error, non-string → a decode error. */
function pointerField(op: Operation, field: 'path' | 'from'): { value: string } | { error: string } {
  const v = op[field];
  if (v === undefined || v === null) {
    return { error: field === 'path' ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}` };
  }
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${goJsonKind(v)} into Go value of type string` };
  return { value: v };
}

function operationValue(op: Operation): unknown {
  return op.value === undefined ? null : cloneJson(op.value);
}

// RFC 6901 unescaping in one pass: `~1` → `/`, then `~0` → `~` (so `~01` is `~1`).
function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** Finds the parent container of the last reference token; undefined when a step is missing. */
function findParent(root: Container, path: string): { parent: Parent; key: string } | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let current: unknown = root.value;
  for (const raw of tokens.slice(1, -1)) {
    const got = getChild(current as Parent, decodeToken(raw));
    if (typeof got === 'string' || got.value === undefined || got.value === null) return undefined;
    if (!isJsonObject(got.value) && !Array.isArray(got.value)) return undefined;
    current = got.value;
  }
  return { parent: current as Parent, key: decodeToken(tokens[tokens.length - 1]) };
}

/** Go's strconv.Atoi: optional sign, decimal digits, 64-bit range. */
function atoi(key: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(key)) return `strconv.Atoi: parsing ${goQuote(key)}: invalid syntax`;
  const n = Number(key);
  if (!Number.isSafeInteger(n)) return `strconv.Atoi: parsing ${goQuote(key)}: value out of range`;
  return n;
}

/** The member or element at `key`: `{ value }` (undefined when an object lacks it) or an error text. */
function getChild(parent: Parent, key: string): { value: unknown } | string {
  if (!Array.isArray(parent)) {
    return { value: Object.prototype.hasOwnProperty.call(parent, key) ? parent[key] : undefined };
  }
  const idx = arrayIndex(parent.length, key);
  if (typeof idx === 'string') return idx;
  return { value: parent[idx] };
}

/** An existing element's index, negative counting from the end. */
function arrayIndex(length: number, key: string): number | string {
  const parsed = atoi(key);
  if (typeof parsed === 'string') return parsed;
  let idx = parsed;
  if (idx >= length || idx < -length) return `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;
  if (idx < 0) idx += length;
  return idx;
}

function addChild(parent: Parent, key: string, value: unknown): string | undefined {
  if (!Array.isArray(parent)) {
    parent[key] = value;
    return undefined;
  }
  if (key === '-') {
    parent.push(value);
    return undefined;
  }
  const parsed = atoi(key);
  if (typeof parsed === 'string') return `value was not a proper array index: '${key}': ${parsed}`;
  let idx = parsed;
  const size = parent.length + 1;
  if (idx >= size || idx < -size) return `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;
  if (idx < 0) idx += size;
  parent.splice(idx, 0, value);
  return undefined;
}

function removeChild(parent: Parent, key: string): string | undefined {
  if (!Array.isArray(parent)) {
    if (!Object.prototype.hasOwnProperty.call(parent, key)) return `Unable to remove nonexistent key: ${key}: ${MISSING}`;
    delete parent[key];
    return undefined;
  }
  const idx = arrayIndex(parent.length, key);
  if (typeof idx === 'string') return idx;
  parent.splice(idx, 1);
  return undefined;
}

function add(root: Container, op: Operation): string | undefined {
  const path = pointerField(op, 'path');
  if ('error' in path) return `add operation failed to decode path: ${MISSING}`;
  const found = findParent(root, path.value);
  if (!found) return `add operation does not apply: doc is missing path: ${JSON.stringify(path.value)}: ${MISSING}`;
  const err = addChild(found.parent, found.key, operationValue(op));
  return err === undefined ? undefined : `error in add for path: '${path.value}': ${err}`;
}

function remove(root: Container, op: Operation): string | undefined {
  const path = pointerField(op, 'path');
  if ('error' in path) return `remove operation failed to decode path: ${MISSING}`;
  const found = findParent(root, path.value);
  if (!found) return `remove operation does not apply: doc is missing path: ${JSON.stringify(path.value)}: ${MISSING}`;
  const err = removeChild(found.parent, found.key);
  return err === undefined ? undefined : `error in remove for path: '${path.value}': ${err}`;
}

function replace(root: Container, op: Operation): string | undefined {
  const path = pointerField(op, 'path');
  if ('error' in path) return `replace operation failed to decode path: ${path.error}`;
  if (path.value === '') {
    // The whole document: an object or array value replaces it; the library ignores any other.
    if (isJsonObject(op.value) || Array.isArray(op.value)) root.value = cloneJson(op.value);
    return undefined;
  }
  const found = findParent(root, path.value);
  if (!found) return `replace operation does not apply: doc is missing path: ${path.value}: ${MISSING}`;
  const got = getChild(found.parent, found.key);
  if (typeof got === 'string') return `replace operation does not apply: doc is missing key: ${path.value}: ${MISSING}`;
  if (Array.isArray(found.parent)) {
    const idx = arrayIndex(found.parent.length, found.key) as number;
    found.parent[idx] = operationValue(op);
  } else {
    found.parent[found.key] = operationValue(op);
  }
  return undefined;
}

function move(root: Container, op: Operation): string | undefined {
  const from = pointerField(op, 'from');
  if ('error' in from) return `move operation failed to decode from: ${from.error}`;
  const source = findParent(root, from.value);
  if (!source) return `move operation does not apply: doc is missing from path: ${from.value}: ${MISSING}`;
  const got = getChild(source.parent, source.key);
  if (typeof got === 'string') return `error in move for path: '${source.key}': ${got}`;
  const removed = removeChild(source.parent, source.key);
  if (removed !== undefined) return `error in move for path: '${source.key}': ${removed}`;
  const path = pointerField(op, 'path');
  if ('error' in path) return `move operation failed to decode path: ${path.error}`;
  const target = findParent(root, path.value);
  if (!target) return `move operation does not apply: doc is missing destination path: ${path.value}: ${MISSING}`;
  const err = addChild(target.parent, target.key, got.value ?? null);
  return err === undefined ? undefined : `error in move for path: '${path.value}': ${err}`;
}

function test(root: Container, op: Operation): string | undefined {
  const path = pointerField(op, 'path');
  if ('error' in path) return `test operation failed to decode path: ${path.error}`;
  // Without a value the test fails (where the Go library does not crash on it, it fails too).
  const failed = `testing value ${path.value} failed: test failed`;
  if (path.value === '') return op.value !== undefined && deepEqualJson(root.value, op.value) ? undefined : failed;
  const found = findParent(root, path.value);
  if (!found) return `test operation does not apply: is missing path: ${path.value}: ${MISSING}`;
  const got = getChild(found.parent, found.key);
  if (typeof got === 'string') return `error in test for path: '${path.value}': ${got}`;
  if (op.value === undefined) return failed;
  return deepEqualJson(got.value ?? null, op.value) ? undefined : failed;
}

function copy(root: Container, op: Operation): string | undefined {
  const from = pointerField(op, 'from');
  if ('error' in from) return `copy operation failed to decode from: ${from.error}`;
  const source = findParent(root, from.value);
  if (!source) return `copy operation does not apply: doc is missing from path: ${from.value}: ${MISSING}`;
  const got = getChild(source.parent, source.key);
  if (typeof got === 'string') return `error in copy for from: '${from.value}': ${got}`;
  const path = pointerField(op, 'path');
  if ('error' in path) return `copy operation failed to decode path: ${MISSING}`;
  const target = findParent(root, path.value);
  if (!target) return `copy operation does not apply: doc is missing destination path: ${path.value}: ${MISSING}`;
  root.copied += goJsonSize(got.value ?? null);
  if (root.maxCopyBytes > 0 && root.copied > root.maxCopyBytes) {
    return `Unable to complete the copy, the accumulated size increase of copy is ${root.copied}, exceeding the limit ${root.maxCopyBytes}`;
  }
  const err = addChild(target.parent, target.key, cloneJson(got.value ?? null));
  return err === undefined ? undefined : `error while adding value during copy: ${err}`;
}

/** Bytes of Go's compact JSON encoding, which escapes <, > and & as \u00XX and U+2028/9 as \u2028/9. */
function goJsonSize(v: unknown): number {
  const text = JSON.stringify(v);
  let extra = 0;
  for (const ch of text) {
    if (ch === '<' || ch === '>' || ch === '&') extra += 5;
    else if (ch === '\u2028' || ch === '\u2029') extra += 3;
  }
  return Buffer.byteLength(text) + extra;
}

/** The JSON kind Go's decoder names in a type-mismatch error. */
export function goJsonKind(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}
