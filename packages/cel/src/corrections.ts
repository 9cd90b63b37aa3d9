/**
 * Corrections to cel-js where it differs from cel-go (the CEL of Kubernetes), applied to each
 * parsed expression. cel-js refuses a second registration of a built-in signature, so the
 * corrections replace the behaviour of the affected AST nodes instead:
 *
 * - `has(e.f)` accepts any operand `e` (cel-go: `has(claims.list[0].x)`, `has({}.?x.y)`); cel-js
 *   only accepts a chain of selections starting at a variable.
 * - `==`, `!=` and `in` follow CEL's heterogeneous equality: numbers compare by value across
 *   int, uint and double (`[1] == [1.0]`, `dyn(3u) in [3]`), optionals compare by content.
 * - `orValue(v)` takes v's type when cel-go leaves the optional's value type open
 *   (`claims[?"a"]["b"].orValue(true)` is a bool); cel-js unifies it with dyn to dyn.
 * - `in` on the claims and `user.extra` maps tests keys as Kubernetes' wrappers do
 *   (escaped-key-map.ts).
 * - int results out of the int64 range are errors (`-(-9223372036854775808)`, `int(1e99)`), as
 *   are timestamps outside years 1-9999 and durations beyond ±10,000 years.
 *
 * Each correction has a test in corrections.test.ts and is counted by the conformance suite.
 */
import { EvaluationError, Optional } from '@marcbachmann/cel-js';
import type { ASTNode } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { EscapedKeyMap } from './escaped-key-map.js';

/** cel-js' view of a type, as far as the corrections read it. */
interface CheckedType {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: CheckedType;
}

interface Checker {
  check(node: Node, ctx: unknown): CheckedType;
  getType(name: string): CheckedType;
  createError(code: string, message: string, node: Node): Error;
}

interface Evaluator {
  run(node: Node, ctx: unknown): unknown;
}

type Handle = (left: unknown, right: unknown, node: Node, ev: Evaluator) => unknown;

/** The parts of cel-js' AST node the corrections use (its `meta` and `handle` are not typed). */
type Node = ASTNode & {
  readonly meta: { macro?: unknown; alternate?: Node; evaluate?: (ev: Evaluator, node: Node, ctx: unknown) => unknown };
  setMeta(key: string, value: unknown): Node;
  checkedType?: CheckedType;
  handle?: Handle;
  evaluate(ev: Evaluator, node: Node, ctx: unknown): unknown;
};

const maxInt = 2n ** 63n - 1n;
const minInt = -(2n ** 63n);
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds: CEL's timestamp range. */
const minTimestamp = -62135596800000;
const maxTimestamp = 253402300799999;
/** CEL's duration range: ±315,576,000,000 seconds (10,000 years). */
const maxDurationSeconds = 315576000000n;

function fail(code: string, message: string): never {
  const error = new EvaluationError(message);
  Object.defineProperty(error, 'code', { value: code });
  throw error;
}

function describeType(value: unknown): string {
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Uint8Array) return 'bytes';
  return typeof value === 'bigint' ? 'int' : typeof value === 'number' ? 'double' : typeof value;
}

function isNode(value: unknown): value is Node {
  return !!value && typeof value === 'object' && 'op' in value && 'args' in value;
}

/** Every node of the tree, including the comprehensions macros expand to. */
function visit(root: unknown, callback: (node: Node) => void, seen = new Set<Node>()): void {
  if (Array.isArray(root)) {
    for (const child of root) visit(child, callback, seen);
    return;
  }
  if (!isNode(root) || seen.has(root)) return;
  seen.add(root);
  callback(root);
  const args: unknown = root.args;
  if (args && typeof args === 'object' && !isNode(args) && !Array.isArray(args)) {
    // comprehension nodes hold their parts in an object
    for (const part of Object.values(args)) visit(part, callback, seen);
  } else {
    visit(args, callback, seen);
  }
  visit(root.meta.alternate, callback, seen);
}

// ---------------------------------------------------------------------------------------------
// has()

const fieldSelectable = new Set(['map', 'dyn', 'message', 'optional', 'param']);

/** cel-go's presence test: `has(e.f)` evaluates `e`, then asks whether it has field/key `f`. */
function hasMacro(select: Node) {
  const [operand, field] = select.args as [Node, string];
  return {
    async: false,
    typeCheck(checker: Checker, _macro: unknown, ctx: unknown): CheckedType {
      let type = checker.check(operand, ctx);
      if (type.kind === 'optional' && type.valueType) type = type.valueType;
      if (!fieldSelectable.has(type.kind)) {
        throw checker.createError('invalid_macro_argument', `type '${type.name}' does not support field selection`, select);
      }
      return checker.getType('bool');
    },
    evaluate(ev: Evaluator, _macro: unknown, ctx: unknown): boolean {
      let value = ev.run(operand, ctx);
      if (value instanceof Optional) {
        if (!value.hasValue()) return false;
        value = value.value();
      }
      if (value instanceof Map) return value.get(field) !== undefined;
      if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) {
        fail('no_such_overload', `no such overload: has() on ${describeType(value)}`);
      }
      return Object.hasOwn(value, field) && (value as Record<string, unknown>)[field] !== undefined;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// optional.orValue(v): the result type when cel-go leaves the receiver's value type open

interface OptionalMacro {
  readonly receiver: Node;
  readonly arg: Node;
  readonly ast: Node;
  typeCheck(checker: Checker, macro: OptionalMacro, ctx: unknown): CheckedType;
}

/**
 * Whether cel-go types the receiver of `orValue` as `dyn` or as `optional(T)` with `T` a type
 * parameter no argument has bound yet. Indexing an `optional(dyn)` (`claims[?"a"]["b"]`) or a
 * `dyn` with `[?]` matches overloads whose value type stays a free parameter, and
 * `optional.none()` has one too; `orValue(v)` then binds it to v's type. cel-js gives all of
 * these `optional<dyn>` and unifies dyn with v's type to dyn.
 */
function leavesValueTypeOpen(receiver: Node, receiverType: CheckedType): boolean {
  if (receiverType.kind === 'dyn') return true;
  if (receiver.op === 'call' && receiver.args[0] === 'optional.none') return true;
  if (receiver.op !== '[]' && receiver.op !== '[?]') return false;
  const operandType = (receiver.args as unknown as [Node])[0].checkedType;
  if (!operandType) return false;
  if (operandType.kind === 'dyn') return receiver.op === '[?]';
  return operandType.kind === 'optional' && operandType.valueType?.kind === 'dyn';
}

/**
 * cel-go's `optional(V).orValue(V) -> V` with V unbound takes the argument's type, so
 * `claims[?"kubernetes.io"]["node"]["ip"].orValue(true)` is a `bool` (a claim validation rule of
 * Kubernetes' own TestToken, "... - success - service account payload"), while
 * `claims.?email_verified.orValue(true)` stays `dyn` (V is already dyn there).
 */
function orValueMacro(original: OptionalMacro): OptionalMacro {
  return {
    ...original,
    typeCheck(checker, macro, ctx) {
      const receiverType = checker.check(macro.receiver, ctx);
      if (!leavesValueTypeOpen(macro.receiver, receiverType)) return original.typeCheck(checker, macro, ctx);
      original.typeCheck(checker, macro, ctx);
      return checker.check(macro.arg, ctx);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Heterogeneous equality (cel-go's ref.Val Equal)

function isNumber(value: unknown): value is bigint | number | UnsignedInt {
  return typeof value === 'bigint' || typeof value === 'number' || value instanceof UnsignedInt;
}

function numericEquals(a: bigint | number | UnsignedInt, b: bigint | number | UnsignedInt): boolean {
  const x = a instanceof UnsignedInt ? a.valueOf() : a;
  const y = b instanceof UnsignedInt ? b.valueOf() : b;
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x === y;
  const [double, integer] = (typeof x === 'number' ? [x, y] : [y, x]) as [number, bigint];
  // Exact comparison: a double equals an integer only when it is that integer.
  return Number.isInteger(double) && BigInt(double) === integer;
}

function entriesOf(value: object): [unknown, unknown][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

function isMapLike(value: unknown): boolean {
  if (value instanceof Map) return true;
  if (!value || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** CEL equality: values of different types are unequal, numbers compare across types by value. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (isNumber(a)) return isNumber(b) && numericEquals(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || a instanceof Set) {
    const left = [...a];
    const right = Array.isArray(b) ? b : b instanceof Set ? [...b] : undefined;
    return !!right && left.length === right.length && left.every((item, i) => celEquals(item, right[i]));
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((byte, i) => byte === b[i]);
  if (a instanceof Optional) {
    if (!(b instanceof Optional) || a.hasValue() !== b.hasValue()) return false;
    return !a.hasValue() || celEquals(a.value(), b.value());
  }
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (isMapLike(a)) {
    if (!isMapLike(b)) return false;
    const left = entriesOf(a);
    const right = entriesOf(b as object);
    return left.length === right.length && left.every(([key, value]) => right.some(([k, v]) => celEquals(key, k) && celEquals(value, v)));
  }
  if (a.constructor === b.constructor && 'name' in a && 'name' in b && a.constructor.name === 'Type') return a.name === b.name;
  return false;
}

function contains(container: unknown, item: unknown): boolean {
  if (Array.isArray(container) || container instanceof Set) {
    for (const element of container) if (celEquals(item, element)) return true;
    return false;
  }
  if (container instanceof EscapedKeyMap) return container.contains(item);
  if (container instanceof Map) {
    if (container.has(item)) return container.get(item) !== undefined;
    return isNumber(item) && [...container.keys()].some((key) => isNumber(key) && numericEquals(item, key));
  }
  if (isMapLike(container)) return typeof item === 'string' && Object.hasOwn(container as object, item);
  return fail('no_such_overload', `no such overload: ${typeof item} in ${typeof container}`);
}

/**
 * The key an index operand names: cel-go finds `{1u: 'a'}[1]` and `[7, 8][dyn(0u)]` by numeric
 * value, cel-js only by identity (bigint 1 is not the uint object 1u).
 */
function indexKey(container: unknown, index: unknown): unknown {
  if (!isNumber(index) || typeof index === 'bigint' && !(container instanceof Map)) return index;
  if (container instanceof Map) {
    if (container.has(index)) return index;
    for (const key of container.keys()) if (isNumber(key) && numericEquals(key, index)) return key;
    return index;
  }
  if (Array.isArray(container) || container instanceof Set) {
    const value = index instanceof UnsignedInt ? index.valueOf() : index;
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
    return value;
  }
  return index;
}

function indexHandle(original: Handle): Handle {
  return (container, index, node, ev) => original(container, indexKey(container, index), node, ev);
}

/**
 * cel-go orders an int or uint against a double by converting the integer to a double (with the
 * double's range checked first): `dyn(9223372036854775807) < 9223372036854775808.0` is false.
 * cel-js compares exactly. Integers of both kinds compare exactly in both.
 */
function compareNumbers(a: bigint | number | UnsignedInt, b: bigint | number | UnsignedInt): number {
  const x = a instanceof UnsignedInt ? a.valueOf() : a;
  const y = b instanceof UnsignedInt ? b.valueOf() : b;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  const [dx, dy] = [Number(x), Number(y)];
  if (Number.isNaN(dx) || Number.isNaN(dy)) return NaN;
  return dx < dy ? -1 : dx > dy ? 1 : 0;
}

const orderings: Record<string, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

function orderingHandle(original: Handle, test: (c: number) => boolean): Handle {
  return (left, right, node, ev) =>
    typeof left !== typeof right && isNumber(left) && isNumber(right) ? test(compareNumbers(left, right)) : original(left, right, node, ev);
}

const equalityHandles: Record<string, Handle> = {
  '==': (left, right) => celEquals(left, right),
  '!=': (left, right) => !celEquals(left, right),
  in: (left, right) => contains(right, left),
};

// ---------------------------------------------------------------------------------------------
// Map literals: cel-js turns every literal into a JavaScript object, so `{1: 'a'}` gets the key
// "1" and repeated or invalid keys go unnoticed. cel-go keeps int, uint and bool keys and fails
// on a repeated key or a key of another type.

function mapKey(key: unknown): unknown {
  if (typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || key instanceof UnsignedInt) return key;
  return fail('unsupported_key_type', `unsupported key type: ${describeType(key)}`);
}

function evaluateMapLiteral(ev: Evaluator, node: Node, ctx: unknown): unknown {
  const entries = node.args as unknown as [Node, Node][];
  const keys: unknown[] = [];
  const values: unknown[] = [];
  let allStrings = true;
  for (const [keyNode, valueNode] of entries) {
    const key = mapKey(ev.run(keyNode, ctx));
    if (keys.some((k) => celEquals(k, key))) fail('repeated_key', `Failed with repeated key: ${String(key)}`);
    if (typeof key !== 'string') allStrings = false;
    keys.push(key);
    values.push(ev.run(valueNode, ctx));
  }
  if (allStrings) return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
  return new Map(keys.map((k, i) => [k, values[i]]));
}

// ---------------------------------------------------------------------------------------------
// Range checks

function checkInt(value: unknown): unknown {
  if (typeof value === 'bigint' && (value > maxInt || value < minInt)) fail('numeric_overflow', `integer overflow: ${value}`);
  return value;
}

function checkTime(value: unknown): unknown {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!(ms >= minTimestamp && ms <= maxTimestamp)) fail('invalid_timestamp', 'timestamp out of range');
  } else if (value instanceof Duration) {
    if (value.seconds > maxDurationSeconds || value.seconds < -maxDurationSeconds) fail('invalid_duration', 'duration out of range');
  }
  return value;
}

/** Wraps a checked node's evaluation with a check of its result. */
function checkResult(node: Node, check: (value: unknown) => unknown): void {
  const evaluate = node.meta.evaluate;
  if (!evaluate) return;
  Object.defineProperty(node, 'evaluate', {
    value: (ev: Evaluator, ast: Node, ctx: unknown) => check(evaluate(ev, ast, ctx)),
    writable: true,
    configurable: true,
  });
}

// ---------------------------------------------------------------------------------------------

/** Before type checking: replaces cel-js macros whose checks differ from cel-go's. */
export function correctParsed(root: ASTNode): void {
  visit(root, (node) => {
    if (node.op === 'call' && node.args[0] === 'has' && node.meta.macro) {
      const [select] = node.args[1];
      if (isNode(select) && select.op === '.') node.setMeta('macro', hasMacro(select));
    } else if (node.op === 'rcall' && node.args[0] === 'orValue' && node.meta.macro) {
      node.setMeta('macro', orValueMacro(node.meta.macro as OptionalMacro));
    }
  });
}

const intResultOps = new Set(['-_', '/', 'call']);
const timeResultOps = new Set(['+', '-', 'call']);

/** After type checking: replaces evaluation steps whose results differ from cel-go's. */
export function correctChecked(root: ASTNode): void {
  visit(root, (node) => {
    const handle = equalityHandles[node.op];
    if (handle && node.handle) {
      node.handle = handle;
      return;
    }
    const ordering = orderings[node.op];
    if (ordering && node.handle) {
      node.handle = orderingHandle(node.handle, ordering);
      return;
    }
    if ((node.op === '[]' || node.op === '[?]') && node.handle) {
      node.handle = indexHandle(node.handle);
      return;
    }
    if (node.meta.macro || node.meta.alternate) return;
    if (node.op === 'map' && (node.args as unknown[]).length > 0) {
      Object.defineProperty(node, 'evaluate', { value: evaluateMapLiteral, writable: true, configurable: true });
      return;
    }
    const type = node.checkedType?.name;
    if (type === 'int' && intResultOps.has(node.op)) checkResult(node, checkInt);
    else if ((type === 'google.protobuf.Timestamp' || type === 'google.protobuf.Duration') && timeResultOps.has(node.op)) {
      checkResult(node, checkTime);
    }
  });
}
