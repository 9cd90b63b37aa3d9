/**
 * The public CEL conformance suite (cel-spec's simple tests, as shipped by @bufbuild/cel-spec) run
 * through this package's environments: the same cel-js options, registered Kubernetes functions,
 * RE2 `matches`, step meter and `compile` path as the claims/user/request environments, with each
 * case's own variables declared.
 *
 * How a case counts:
 * - cel-go type-checked it (`disableCheck` unset): our checker must accept it too, then the value or
 *   the evaluation error must match; a compile-time rejection is a failure.
 * - `disableCheck` (cel-go evaluates the expression unchecked): where cel-go's checker rejects the
 *   expression too (the suite records its error), our compile-time rejection passes, since
 *   Kubernetes always type-checks and never evaluates such an expression. Where cel-go's checker
 *   accepts it, ours must as well. An expression we accept must then evaluate as expected.
 * - `checkOnly` / `typedResult`: the checked type must be cel-go's deduced type.
 * - Skipped, with the reason: cases that need protobuf messages or abstract types no Kubernetes
 *   environment declares.
 */
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import type { SerializedIncrementalTest } from '@bufbuild/cel-spec/testdata/tests.js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { compileIn, kubernetesTypeName } from '../../src/compile.js';
import { buildEnvironment, type BuiltEnvironment } from '../../src/environments.js';

/** The sections Kubernetes' CEL environments use (issue 17, item 10). */
export const kubernetesSections = [
  'basic',
  'bindings_ext',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'optionals',
  'parse',
  'plumbing',
  'string',
  'string_ext',
  'timestamps',
  'type_deductions',
] as const;

export type Outcome = { kind: 'pass' } | { kind: 'fail'; detail: string } | { kind: 'skip'; reason: SkipReason };

export const skipReasons = {
  protobuf:
    'uses protobuf messages (TestAllTypes, wrapper types, google.protobuf.Value/Struct/Any): no Kubernetes authentication or authorization variable is a protobuf message',
  abstractType: 'declares a function over an abstract type (tuple) of its own: Kubernetes environments declare no such types',
  qualifiedVariable: "declares variables with dotted names (`a.b`): Kubernetes' variables (claims, user, request) are plain identifiers",
  quotedField:
    'selects a field with backtick quoting (`` x.`a-b` ``), which needs cel-go\'s EnableIdentifierEscapeSyntax: Kubernetes does not enable it (use `x["a-b"]`)',
} as const;
export type SkipReason = keyof typeof skipReasons;

export interface CaseResult {
  readonly section: string;
  /** `section/suite/name`, stable across runs. */
  readonly id: string;
  readonly expr: string;
  readonly outcome: Outcome;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface SimpleTest {
  name?: string;
  expr: string;
  disableCheck?: boolean;
  checkOnly?: boolean;
  container?: string;
  typeEnv?: JsonObject[];
  bindings?: Record<string, { value: JsonObject }>;
  value?: JsonObject;
  evalError?: JsonObject;
  typedResult?: { result?: JsonObject; deducedType: JsonObject };
}

const protobufPattern =
  /TestAllTypes|NestedTestAllTypes|TestRequired|GlobalEnum|NestedEnum|google\.protobuf\.(Any|Value|Struct|ListValue|NullValue|Empty|FieldMask|(Bool|Bytes|Double|Float|Int32|Int64|String|UInt32|UInt64)Value)\b/;

class Unsupported extends Error {}

function skipReason(test: SimpleTest): SkipReason | undefined {
  if (test.container) return 'protobuf';
  const declarations = JSON.stringify({ typeEnv: test.typeEnv, bindings: test.bindings, value: test.value, typed: test.typedResult });
  if (protobufPattern.test(test.expr) || protobufPattern.test(declarations) || declarations.includes('"wrapper"')) return 'protobuf';
  if (declarations.includes('"abstractType":{"name":"tuple"')) return 'abstractType';
  if (test.typeEnv?.some((decl) => String(decl.name).includes('.'))) return 'qualifiedVariable';
  if (/\.\s*`/.test(test.expr)) return 'quotedField';
  return undefined;
}

/** A conformance type (cel.expr.Type as JSON) in cel-js' spelling. */
function celJsType(type: JsonObject): string {
  const [kind] = Object.keys(type);
  const body = type[kind!] as JsonObject & string;
  switch (kind) {
    case 'primitive':
      return ({ INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BOOL: 'bool', BYTES: 'bytes' } as Record<string, string>)[body]!;
    case 'wellKnown':
      if (body === 'DURATION') return 'google.protobuf.Duration';
      if (body === 'TIMESTAMP') return 'google.protobuf.Timestamp';
      throw new Unsupported(`well-known type ${body}`);
    case 'messageType':
      if (body === 'google.protobuf.Duration' || body === 'google.protobuf.Timestamp') return body;
      throw new Unsupported(`message type ${body}`);
    case 'listType':
      return `list<${celJsType(body.elemType as JsonObject)}>`;
    case 'mapType':
      return `map<${celJsType(body.keyType as JsonObject)}, ${celJsType(body.valueType as JsonObject)}>`;
    case 'dyn':
      return 'dyn';
    case 'null':
      return 'null';
    case 'type':
      return 'type';
    case 'typeParam':
      return String(body);
    case 'abstractType': {
      const params = ((body.parameterTypes as JsonObject[] | undefined) ?? []).map(celJsType);
      if (body.name === 'optional_type') return `optional<${params[0]}>`;
      throw new Unsupported(`abstract type ${String(body.name)}`);
    }
    default:
      throw new Unsupported(`type ${kind}`);
  }
}

function bytesOf(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, 'base64'));
}

/** A conformance value (cel.expr.Value as JSON) as cel-js represents it. */
function celValue(value: JsonObject): unknown {
  const [kind] = Object.keys(value);
  const body = value[kind!];
  switch (kind) {
    case 'int64Value':
      return BigInt(body as string);
    case 'uint64Value':
      return new UnsignedInt(BigInt(body as string));
    case 'doubleValue':
      return Number(body);
    case 'stringValue':
    case 'boolValue':
      return body;
    case 'bytesValue':
      return bytesOf(body as string);
    case 'nullValue':
      return null;
    case 'listValue':
      return (((body as JsonObject).values as JsonObject[] | undefined) ?? []).map(celValue);
    case 'mapValue':
      return new Map(
        (((body as JsonObject).entries as JsonObject[] | undefined) ?? []).map((e) => [celValue(e.key as JsonObject), celValue(e.value as JsonObject)]),
      );
    case 'typeValue':
      return { typeName: body as string };
    case 'objectValue': {
      const object = body as JsonObject;
      if (object['@type'] === 'type.googleapis.com/google.protobuf.Duration') return parseDuration(object.value as string);
      if (object['@type'] === 'type.googleapis.com/google.protobuf.Timestamp') return new Date(object.value as string);
      throw new Unsupported(`object ${String(object['@type'])}`);
    }
    default:
      throw new Unsupported(`value ${kind}`);
  }
}

/** A protobuf JSON duration (`123.321456789s`). */
function parseDuration(text: string): Duration {
  const match = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new Unsupported(`duration ${text}`);
  const sign = match[1] ? -1 : 1;
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  return new Duration(BigInt(sign) * BigInt(match[2]!), sign * nanos);
}

/** cel-go's type names for `type(x)` results, from cel-js' (which calls null_type `null`). */
function typeName(value: { name: string }): string {
  return value.name === 'null' ? 'null_type' : value.name === 'optional' ? 'optional_type' : value.name;
}

/** Whether an evaluated value is the expected one: same CEL type and equal (NaN equals NaN here). */
function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'bigint' || typeof expected === 'string' || typeof expected === 'boolean' || expected === null) {
    return actual === expected;
  }
  if (typeof expected === 'number') return typeof actual === 'number' && (actual === expected || (Number.isNaN(actual) && Number.isNaN(expected)));
  if (expected instanceof UnsignedInt) return actual instanceof UnsignedInt && actual.valueOf() === expected.valueOf();
  if (expected instanceof Uint8Array) {
    return actual instanceof Uint8Array && actual.length === expected.length && actual.every((b, i) => b === expected[i]);
  }
  if (expected instanceof Duration) return actual instanceof Duration && actual.seconds === expected.seconds && actual.nanos === expected.nanos;
  if (expected instanceof Date) return actual instanceof Date && actual.getTime() === expected.getTime();
  if (Array.isArray(expected)) {
    const list = actual instanceof Set ? [...actual] : actual;
    return Array.isArray(list) && list.length === expected.length && expected.every((e, i) => sameValue(list[i], e));
  }
  if (expected instanceof Map) {
    const entries: [unknown, unknown][] =
      actual instanceof Map ? [...actual.entries()] : actual && typeof actual === 'object' ? Object.entries(actual) : [];
    if (!(actual instanceof Map) && (!actual || typeof actual !== 'object' || Array.isArray(actual))) return false;
    return (
      entries.length === expected.size &&
      [...expected.entries()].every(([k, v]) => entries.some(([ak, av]) => sameValue(ak, k) && sameValue(av, v)))
    );
  }
  if (expected && typeof expected === 'object' && 'typeName' in expected) {
    return !!actual && typeof actual === 'object' && 'name' in actual && typeName(actual as { name: string }) === expected.typeName;
  }
  return false;
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}`;
  if (value instanceof UnsignedInt) return `${value.valueOf()}u`;
  if (value instanceof Map) return `{${[...value.entries()].map(([k, v]) => `${describe(k)}: ${describe(v)}`).join(', ')}}`;
  if (Array.isArray(value)) return `[${value.map(describe).join(', ')}]`;
  if (value instanceof Uint8Array) return `b"${Buffer.from(value).toString('hex')}"`;
  if (value instanceof Optional) return value.hasValue() ? `optional.of(${describe(value.value())})` : 'optional.none()';
  if (value && typeof value === 'object' && 'name' in value && value.constructor?.name === 'Type') return `type(${String(value.name)})`;
  if (value && typeof value === 'object' && 'typeName' in value) return `type(${String(value.typeName)})`;
  if (value && typeof value === 'object' && value.constructor === Object) {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${describe(v)}`).join(', ')}}`;
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** cel-go's spelling of a checked type (`list(int)`, `optional_type(string)`...), from ours. */
function celGoTypeName(type: string): string {
  return kubernetesTypeName(type).replaceAll('optional(', 'optional_type(').replaceAll('null', 'null_type');
}

const environments = new Map<string, BuiltEnvironment<string>>();

/** Our environment with the case's variables (and functions, declared without implementations). */
function environmentFor(test: SimpleTest): BuiltEnvironment<string> {
  const declared = new Set<string>();
  const declarations: ((env: Environment) => void)[] = [];
  for (const decl of test.typeEnv ?? []) {
    const name = decl.name as string;
    if (decl.ident) {
      const type = celJsType((decl.ident as JsonObject).type as JsonObject);
      declared.add(name);
      declarations.push((env) => env.registerVariable(name, type));
    } else if (decl.function) {
      for (const overload of ((decl.function as JsonObject).overloads as JsonObject[] | undefined) ?? []) {
        const params = ((overload.params as JsonObject[] | undefined) ?? []).map(celJsType);
        const result = celJsType(overload.resultType as JsonObject);
        const signature = overload.isInstanceFunction
          ? `${params[0]}.${name}(${params.slice(1).join(', ')}): ${result}`
          : `${name}(${params.join(', ')}): ${result}`;
        declarations.push((env) =>
          env.registerFunction(signature, () => {
            throw new Error(`${name} has no implementation in the conformance suite`);
          }),
        );
      }
    }
  }
  // Without type checking, cel-go needs no declarations; the bindings' names are dyn here.
  for (const name of Object.keys(test.bindings ?? {})) {
    if (!declared.has(name)) declarations.push((env) => env.registerVariable(name, 'dyn'));
  }
  const key = JSON.stringify([test.typeEnv ?? [], Object.keys(test.bindings ?? {}).filter((n) => !declared.has(n))]);
  let built = environments.get(key);
  if (!built) {
    built = buildEnvironment('conformance', (env) => declarations.forEach((declare) => declare(env)));
    environments.set(key, built);
  }
  return built;
}

function runCase(test: SimpleTest, celGoCheckError: string | undefined): Outcome {
  const reason = skipReason(test);
  if (reason) return { kind: 'skip', reason };
  const built = environmentFor(test);
  const activation = Object.fromEntries(Object.entries(test.bindings ?? {}).map(([name, b]) => [name, celValue(b.value)]));
  const expectsError = test.evalError !== undefined;
  const expected = test.typedResult ? test.typedResult.result : test.value;

  const compiled = compileIn(built, test.expr, ['dyn']);
  if (!compiled.ok) {
    if (test.disableCheck && celGoCheckError) return { kind: 'pass' };
    return { kind: 'fail', detail: `rejected at compile time: ${compiled.issue.detail.split('\n')[0]}` };
  }
  if (test.typedResult) {
    const want = celJsType(test.typedResult.deducedType);
    if (celGoTypeName(compiled.program.outputType) !== celGoTypeName(want)) {
      return { kind: 'fail', detail: `checked type ${compiled.program.outputType}, cel-go deduces ${want}` };
    }
  }
  if (test.checkOnly) return { kind: 'pass' };

  let actual: unknown;
  try {
    actual = compiled.program.evaluate(activation);
  } catch (error) {
    if (expectsError) return { kind: 'pass' };
    return { kind: 'fail', detail: `evaluation error: ${(error as Error).message.split('\n')[0]}` };
  }
  if (expectsError) return { kind: 'fail', detail: `expected an error, got ${describe(actual)}` };
  if (expected === undefined) return { kind: 'pass' };
  const want = celValue(expected);
  return sameValue(actual, want) ? { kind: 'pass' } : { kind: 'fail', detail: `got ${describe(actual)}, want ${describe(want)}` };
}

/** Runs every case of the given sections (default: the ones Kubernetes' environments use). */
export function runConformance(sections: readonly string[] = kubernetesSections): CaseResult[] {
  const results: CaseResult[] = [];
  for (const section of conformance.suites ?? []) {
    if (!sections.includes(section.name)) continue;
    for (const suite of section.suites ?? []) {
      for (const entry of suite.tests ?? []) {
        const test = (entry as SerializedIncrementalTest).original as unknown as SimpleTest;
        const id = `${section.name}/${suite.name}/${test.name ?? test.expr}`;
        let outcome: Outcome;
        try {
          outcome = runCase(test, (entry as SerializedIncrementalTest).error);
        } catch (error) {
          if (!(error instanceof Unsupported)) throw error;
          outcome = { kind: 'fail', detail: `cannot represent ${error.message}` };
        }
        results.push({ section: section.name, id, expr: test.expr, outcome });
      }
    }
  }
  return results;
}

export interface SectionSummary {
  readonly section: string;
  readonly total: number;
  readonly skipped: number;
  readonly passed: number;
}

export function summarize(results: readonly CaseResult[]): SectionSummary[] {
  const bySection = new Map<string, { total: number; skipped: number; passed: number }>();
  for (const r of results) {
    const s = bySection.get(r.section) ?? { total: 0, skipped: 0, passed: 0 };
    s.total++;
    if (r.outcome.kind === 'skip') s.skipped++;
    if (r.outcome.kind === 'pass') s.passed++;
    bySection.set(r.section, s);
  }
  return [...bySection.entries()].map(([section, s]) => ({ section, ...s }));
}

/** What `tools/cel-conformance/report.mjs` records and the conformance test compares against. */
export interface ConformanceRecord {
  readonly sections: readonly SectionSummary[];
  /** Ids of the runnable cases that fail, sorted. */
  readonly failing: readonly string[];
  /** Skipped case ids by reason. */
  readonly skipped: Readonly<Record<string, readonly string[]>>;
}

export function record(results: readonly CaseResult[]): ConformanceRecord {
  const skipped: Record<string, string[]> = {};
  for (const r of results) if (r.outcome.kind === 'skip') (skipped[r.outcome.reason] ??= []).push(r.id);
  return {
    sections: summarize(results),
    failing: results.filter((r) => r.outcome.kind === 'fail').map((r) => r.id).sort(),
    skipped,
  };
}

function percent(passed: number, runnable: number): string {
  return runnable === 0 ? '—' : `${((100 * passed) / runnable).toFixed(1)}%`;
}

/** The README table: per section, cases, skipped, runnable, passed and the pass rate. */
export function renderTable(rec: ConformanceRecord): string {
  const rows = rec.sections.map((s) => {
    const runnable = s.total - s.skipped;
    return `| ${s.section} | ${s.total} | ${s.skipped} | ${runnable} | ${s.passed} | ${percent(s.passed, runnable)} |`;
  });
  const total = rec.sections.reduce((a, s) => ({ total: a.total + s.total, skipped: a.skipped + s.skipped, passed: a.passed + s.passed }), {
    total: 0,
    skipped: 0,
    passed: 0,
  });
  const runnable = total.total - total.skipped;
  const skips = Object.entries(rec.skipped).map(
    ([reason, ids]) => `- ${ids.length} skipped: ${skipReasons[reason as SkipReason]}.`,
  );
  return [
    '| Section | Cases | Skipped | Runnable | Passed | Pass rate |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    `| **all** | ${total.total} | ${total.skipped} | ${runnable} | ${total.passed} | **${percent(total.passed, runnable)}** |`,
    '',
    ...skips,
  ].join('\n');
}

/** Where the record lives (relative to the repository root) and the README markers around the table. */
export const resultsFile = 'packages/cel/test/conformance/results.generated.json';
export const tableBegin = '<!-- conformance table: generated by node tools/cel-conformance/report.mjs, do not edit -->';
export const tableEnd = '<!-- end of conformance table -->';
