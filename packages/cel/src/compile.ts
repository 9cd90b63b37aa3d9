/**
 * `compile(env, expression, expectedTypes)`: parse and type-check once, evaluate many times.
 *
 * Result types follow Kubernetes: a claim mapping is compiled as `dyn` (any result type passes the
 * compiler; the caller checks the value after evaluation), while validation rules and match
 * conditions must type-check to `bool`. So `claims.?email_verified.orValue(true)` (type `dyn`) is
 * rejected as a rule and `claims.?email_verified.orValue(true) == true` passes, while
 * `claims[?"a"]["b"].orValue(true)` is a `bool` as in cel-go (see corrections.ts).
 */
import { EvaluationError, ParseError, TypeError as CelTypeError } from '@marcbachmann/cel-js';
import type { ASTNode, ParseResult } from '@marcbachmann/cel-js';
import { defaultEvaluationBudget, type EvaluationBudget } from './budget.js';
import { celEnvironment, type BuiltEnvironment, type CelEnvironmentName } from './environments.js';
import { correctChecked, correctParsed } from './corrections.js';
import { CelBudgetExceededError, CelEvaluationError } from './errors.js';
import { routeMatchesToRE2 } from './regex.js';
import { toCelClaims } from './values.js';

/** A result type in Kubernetes' spelling: `bool`, `string`, `list(string)`, ... `dyn` accepts any. */
export type CelType = string;

export const CelTypes = {
  Any: 'dyn',
  Bool: 'bool',
  String: 'string',
  StringList: 'list(string)',
} as const;

/**
 * A compile problem, shaped like Kubernetes' `apiservercel.Error`: the config loader turns an
 * `Invalid` issue into `field: Invalid value: "<expression>": <detail>`.
 */
export interface CelIssue {
  readonly type: 'Invalid' | 'Required' | 'Internal';
  readonly detail: string;
}

/** Longest accepted expression, in characters. */
export const maxExpressionLength = 32 * 1024;

export interface CompileOptions {
  /** Per-evaluation bounds; defaults to {@link defaultEvaluationBudget}. */
  budget?: Partial<EvaluationBudget>;
}

export type CompileResult = { ok: true; program: CelProgram } | { ok: false; issue: CelIssue };

/** Variables for one evaluation: `{ claims }`, `{ user }` or `{ request }`. */
export type Activation = Readonly<Record<string, unknown>>;

export interface CelProgram {
  /** The environment's name: `claims`, `user` or `request`. */
  readonly environment: string;
  readonly expression: string;
  /** The checked result type in Kubernetes' spelling (`bool`, `string`, `list(string)`, `dyn`...). */
  readonly outputType: CelType;
  readonly budget: EvaluationBudget;
  /**
   * Whether the expression selects `variable.field` (`claims.email`, `claims.?email`, or inside
   * `has(...)`), the test Kubernetes applies for the email_verified rule.
   */
  selects(variable: string, field: string): boolean;
  /**
   * Evaluates the program. Integers come back as `bigint`, optionals as cel-js `Optional`.
   * For the `claims` environment, integral JSON numbers of the claims are passed as CEL ints.
   * @throws CelEvaluationError (or CelBudgetExceededError when the budget runs out)
   */
  evaluate(activation: Activation): unknown;
  /** Steps taken by the most recent evaluation of any program of this environment. */
  lastSteps(): number;
}

/** cel-js spells parameterized types `list<string>`; Kubernetes and cel-go spell them `list(string)`. */
export function kubernetesTypeName(celJsType: string): string {
  if (celJsType === 'list') return 'list(dyn)';
  if (celJsType === 'map') return 'map(dyn, dyn)';
  // A type parameter left free (`[]` is `list<T>`) is dyn, as cel-go reports it.
  return celJsType.replaceAll('<', '(').replaceAll('>', ')').replace(/(?<=[(, ])[A-Z](?=[),])/g, 'dyn');
}

/** cel-go's issue text: `ERROR: <input>:1:8: message` then the source line and a caret. */
function describeSourceError(expression: string, error: { summary?: string; message: string; range?: { start: number } }): string {
  const summary = error.summary ?? error.message.split('\n')[0] ?? 'invalid expression';
  const offset = Math.max(0, Math.min(error.range?.start ?? 0, expression.length));
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart + 1;
  const sourceLine = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column}: ${summary}\n | ${sourceLine}\n | ${'.'.repeat(column - 1)}^`;
}

function walk(node: unknown, visit: (node: ASTNode) => boolean): boolean {
  if (Array.isArray(node)) return node.some((child) => walk(child, visit));
  if (!node || typeof node !== 'object' || !('op' in node) || !('args' in node)) return false;
  const ast = node as ASTNode;
  if (visit(ast)) return true;
  const args: unknown = ast.args;
  return typeof args === 'object' && args !== null && walk(args, visit);
}

function selectsField(root: ASTNode, variable: string, field: string): boolean {
  return walk(root, (node) => {
    if (node.op !== '.' && node.op !== '.?') return false;
    const [operand, name] = node.args as [ASTNode, string];
    return name === field && operand.op === 'id' && operand.args === variable;
  });
}

/** Compiles an expression for an environment, checking its result type against `expectedTypes`. */
export function compile(
  environment: CelEnvironmentName,
  expression: string,
  expectedTypes: readonly CelType[],
  options: CompileOptions = {},
): CompileResult {
  return compileIn(celEnvironment(environment), expression, expectedTypes, options);
}

/** {@link compile} in a given environment (the named ones, or the conformance suite's). */
export function compileIn(
  built: BuiltEnvironment<string>,
  expression: string,
  expectedTypes: readonly CelType[],
  options: CompileOptions = {},
): CompileResult {
  const environment = built.name;
  if (expression.trim() === '') return { ok: false, issue: { type: 'Required', detail: 'expression is required' } };
  if (expression.length > maxExpressionLength) {
    return {
      ok: false,
      issue: { type: 'Invalid', detail: `expression is too long: ${expression.length} characters, at most ${maxExpressionLength}` },
    };
  }
  let parsed: ParseResult;
  let checkedType: string;
  try {
    parsed = built.env.parse(expression);
    correctParsed(parsed.ast);
    const checked = parsed.check();
    if (!checked.valid) {
      return { ok: false, issue: { type: 'Invalid', detail: `compilation failed: ${describeSourceError(expression, checked.error ?? new Error('type check failed'))}` } };
    }
    checkedType = kubernetesTypeName(checked.type ?? 'dyn');
    correctChecked(parsed.ast);
  } catch (error) {
    if (error instanceof ParseError || error instanceof CelTypeError) {
      return { ok: false, issue: { type: 'Invalid', detail: `compilation failed: ${describeSourceError(expression, error)}` } };
    }
    return { ok: false, issue: { type: 'Internal', detail: `unexpected compilation error: ${(error as Error).message}` } };
  }

  const found = expectedTypes.some((t) => t === checkedType || (environment !== 'request' && t === CelTypes.Any));
  if (!found) {
    let detail: string;
    if (expectedTypes.length === 1) {
      // Kubernetes' authorization compiler names the type it got; the authentication one does not.
      detail =
        environment === 'request'
          ? `must evaluate to ${expectedTypes[0]} but got ${checkedType}`
          : `must evaluate to ${expectedTypes[0]}`;
    } else {
      detail = `must evaluate to one of [${expectedTypes.join(' ')}]`;
    }
    return { ok: false, issue: { type: 'Invalid', detail } };
  }

  // `matches` runs on RE2 (linear time, RE2 syntax); a constant pattern RE2 rejects fails here.
  const badPattern = routeMatchesToRE2(parsed.ast);
  if (badPattern) {
    const detail = describeSourceError(expression, {
      summary: `invalid matches argument: ${badPattern.error}`,
      message: badPattern.error,
      range: { start: badPattern.node.start },
    });
    return { ok: false, issue: { type: 'Invalid', detail: `compilation failed: ${detail}` } };
  }

  const budget: EvaluationBudget = { ...defaultEvaluationBudget, ...options.budget };
  const { meter } = built;
  const run = parsed;
  const program: CelProgram = {
    environment,
    expression,
    outputType: checkedType,
    budget,
    selects: (variable, field) => selectsField(run.ast, variable, field),
    evaluate(activation) {
      const input = environment === 'claims' && 'claims' in activation ? { ...activation, claims: toCelClaims(activation.claims) } : activation;
      meter.start(budget);
      try {
        return run(input);
      } catch (error) {
        if (error instanceof CelEvaluationError) throw error;
        if (error instanceof EvaluationError) {
          throw new CelEvaluationError(error.summary || error.message.split('\n')[0] || 'evaluation failed', error.code, { cause: error });
        }
        if (error instanceof RangeError) {
          // Deep recursion in a builtin: treat like a budget overrun rather than crash the caller.
          throw new CelBudgetExceededError(`operation cancelled: ${error.message}`);
        }
        const message = error instanceof Error ? error.message : String(error);
        throw new CelEvaluationError(message.split('\n')[0] ?? message, 'internal', { cause: error });
      }
    },
    lastSteps: () => meter.used,
  };
  return { ok: true, program };
}
