/**
 * Overloads of CEL's standard library and of the optional library that cel-js does not ship,
 * registered on our environments (cel-go has them, so Kubernetes expressions may use them):
 * ordering of bytes, the conversions `int(uint)`, `int(timestamp)`, `string(timestamp)`,
 * `string(duration)` and the timestamp/duration identities, equality of optionals, and the
 * optional macros `optMap` and `optFlatMap`.
 */
import { EvaluationError, Optional, type Environment } from '@marcbachmann/cel-js';
import type { ASTNode } from '@marcbachmann/cel-js';
import type { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celEquals } from './corrections.js';

const maxInt = 2n ** 63n - 1n;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** RFC 3339 as cel-go prints a timestamp: UTC, fractional seconds only when not zero. */
export function formatTimestamp(ts: Date): string {
  return ts.toISOString().replace(/\.(\d*?)0*Z$/, (_, fraction: string) => (fraction ? `.${fraction}Z` : 'Z'));
}

/** A duration as cel-go prints it: seconds with the fraction it needs (`1.5s`, `3600s`). */
export function formatDuration(d: Duration): string {
  const nanos = BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
  const sign = nanos < 0n ? '-' : '';
  const abs = nanos < 0n ? -nanos : nanos;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${abs / 1_000_000_000n}${fraction ? `.${fraction}` : ''}s`;
}

interface MacroChecker {
  check(node: ASTNode, ctx: MacroContext): { kind: string; valueType?: unknown; name: string };
  createError(code: string, message: string, node: ASTNode): Error;
  registry: { getOptionalType(type: unknown): unknown };
  getType(name: string): { kind: string; name: string };
}

interface MacroContext {
  forkWithVariable(name: string, type: unknown): MacroContext;
  reuse(ctx: unknown): MacroContext;
  setIterValue(value: unknown, ev: unknown): MacroContext;
}

interface MacroEvaluator {
  run(node: ASTNode, ctx: unknown): unknown;
}

/**
 * `opt.optMap(x, expr)` (optional.of(expr with x bound to the value), or none) and
 * `opt.optFlatMap(x, expr)` (expr must itself be an optional), as cel-go's optional library.
 */
function optionalMapMacro(flat: boolean) {
  const name = flat ? 'optFlatMap' : 'optMap';
  return ({ args, receiver }: { args: ASTNode[]; receiver: ASTNode }) => {
    const [variable, expression] = args as [ASTNode, ASTNode];
    let bound: MacroContext | undefined;
    return {
      async: false,
      typeCheck(checker: MacroChecker, _macro: unknown, ctx: MacroContext) {
        if (variable.op !== 'id') throw checker.createError('invalid_macro_argument', `${name}() variable name must be a simple identifier`, variable);
        const receiverType = checker.check(receiver, ctx);
        if (receiverType.kind !== 'optional' && receiverType.kind !== 'dyn') {
          throw checker.createError('optional_expected', `${name}() receiver must be optional, got '${receiverType.name}'`, receiver);
        }
        const valueType = receiverType.kind === 'optional' ? receiverType.valueType : receiverType;
        bound = ctx.forkWithVariable(variable.args as string, valueType);
        const resultType = checker.check(expression, bound);
        if (!flat) return checker.registry.getOptionalType(resultType);
        if (resultType.kind !== 'optional' && resultType.kind !== 'dyn') {
          throw checker.createError('optional_expected', `${name}() expression must be optional, got '${resultType.name}'`, expression);
        }
        return resultType;
      },
      evaluate(ev: MacroEvaluator, _macro: unknown, ctx: unknown) {
        const optional = ev.run(receiver, ctx);
        if (!(optional instanceof Optional)) throw new EvaluationError(`${name}() receiver must be optional`);
        if (!optional.hasValue()) return Optional.none();
        const result = ev.run(expression, bound!.reuse(ctx).setIterValue(optional.value(), ev));
        if (!flat) return Optional.of(result);
        if (!(result instanceof Optional)) throw new EvaluationError(`${name}() expression must return an optional`);
        return result;
      },
    };
  };
}

/** Registers the overloads; called once per environment at construction. */
export function registerStandardLibrary(env: Environment): void {
  for (const [op, test] of [
    ['<', (c: number) => c < 0],
    ['<=', (c: number) => c <= 0],
    ['>', (c: number) => c > 0],
    ['>=', (c: number) => c >= 0],
  ] as const) {
    env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => test(compareBytes(a, b)));
  }

  env.registerFunction('int(uint): int', (v: UnsignedInt) => {
    const value = v.valueOf();
    if (value > maxInt) throw new EvaluationError('int() type error: integer overflow');
    return value;
  });
  env.registerFunction('int(google.protobuf.Timestamp): int', (ts: Date) => BigInt(Math.floor(ts.getTime() / 1000)));
  env.registerFunction('string(google.protobuf.Timestamp): string', formatTimestamp);
  env.registerFunction('string(google.protobuf.Duration): string', formatDuration);
  env.registerFunction('timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp', (ts: Date) => ts);
  env.registerFunction('duration(google.protobuf.Duration): google.protobuf.Duration', (d: Duration) => d);

  env.registerOperator('optional<A> == optional<A>', (a: unknown, b: unknown) => celEquals(a, b));
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', optionalMapMacro(false) as never);
  env.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', optionalMapMacro(true) as never);
}
