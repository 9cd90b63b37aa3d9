import { compile, CelTypes } from './compile.js';
import { CelEvaluationError } from './errors.js';

function run(expr: string, claims: Record<string, unknown> = {}): unknown {
  const result = compile('claims', expr, [CelTypes.Any]);
  if (!result.ok) throw new Error(result.issue.detail);
  return result.program.evaluate({ claims });
}

function compileError(expr: string): string {
  const result = compile('claims', expr, [CelTypes.Any]);
  if (result.ok) throw new Error(`${expr} compiled`);
  return result.issue.detail;
}

const claims = { items: [{ name: 'a' }, { id: 2 }], profile: { team: 'core' }, n: 2, flag: true };

describe('has() takes any operand, as in cel-go', () => {
  it('tests a field of an indexed element, of a map literal and of an optional', () => {
    expect(run('has(claims.items[0].name)', claims)).toBe(true);
    expect(run('has(claims.items[1].name)', claims)).toBe(false);
    expect(run('claims.items.filter(i, has(i.name)).size()', claims)).toBe(1n);
    expect(run('has({"a": 1}.a) && !has({"a": 1}.b)')).toBe(true);
    expect(run('has(claims.?profile.team)', claims)).toBe(true);
    expect(run('has(claims.?missing.team)', claims)).toBe(false);
    expect(run('has(claims.profile.team)', claims)).toBe(true);
  });

  it('still fails on a missing intermediate field and on a value without fields', () => {
    expect(() => run('has(claims.absent.team)', claims)).toThrow(CelEvaluationError);
    expect(() => run('has(claims.n.x)', claims)).toThrow(/no such overload: has\(\) on int/);
    expect(compileError('has("s".x)')).toContain("type 'string' does not support field selection");
  });
});

describe('heterogeneous equality', () => {
  it('compares numbers by value across int, uint and double', () => {
    expect(run('claims.n == 2.0 && claims.n != 2.5', claims)).toBe(true);
    expect(run('dyn([1]) == [1.0] && [dyn(1u)] == [1]')).toBe(true);
    expect(run('dyn(3u) in [1, 2, 3] && 3.0 in {1: 1, 3u: 3}')).toBe(true);
    expect(run('dyn(9007199254740993) == 9007199254740992.0')).toBe(false);
    expect(run('[1, "a"] == [1, "a"] && dyn([1]) != ["1"]')).toBe(true);
  });

  it('orders an integer against a double as cel-go does, through a double', () => {
    expect(run('dyn(9223372036854775807) < 9223372036854775808.0')).toBe(false);
    expect(run('dyn(9223372036854775807) >= 9223372036854775808.0')).toBe(true);
    expect(run('claims.n < 2.5 && dyn(2u) > 1 && dyn(1) < dyn(2u)', claims)).toBe(true);
  });

  it('compares optionals by content', () => {
    expect(run('optional.of(1) == optional.of(1) && optional.none() != optional.of(1)')).toBe(true);
  });
});

describe('map literals keep their key types', () => {
  it('finds int, uint and bool keys by value', () => {
    expect(run('{1: "a", 2: "b"}[2]')).toBe('b');
    expect(run('{1u: "a"}[1] + {true: "b"}[true]')).toBe('ab');
    expect(run('{1: "a"}.exists(k, k == 1)')).toBe(true);
    expect(run('1 in {1: "a"} && !(dyn("1") in {1: "a"})')).toBe(true);
  });

  it('fails on a repeated key and on a key type CEL does not allow', () => {
    expect(() => run('{"a": 1, "a": 2}')).toThrow(/repeated key/);
    expect(() => run('{0: 1, 0u: 2}')).toThrow(/repeated key/);
    expect(() => run('{1.5: "x"}')).toThrow(/unsupported key type: double/);
  });
});

describe('range checks', () => {
  it('reports int64 overflow of negation, division and conversion', () => {
    expect(() => run('-(-9223372036854775807 - 1)')).toThrow(/integer overflow/);
    expect(() => run('(-9223372036854775807 - 1) / -1')).toThrow(/integer overflow/);
    expect(() => run('int(1e99)')).toThrow(/overflow/);
    expect(run('-9223372036854775807')).toBe(-9223372036854775807n);
  });

  it('keeps timestamps within the years 1-9999 and durations within 10,000 years', () => {
    expect(() => run('timestamp("9999-12-31T23:59:59Z") + duration("1s")')).toThrow(/timestamp out of range/);
    expect(() => run('duration("200000000000s") + duration("200000000000s")')).toThrow(/duration out of range/);
    expect(run('string(timestamp("2023-02-03T23:31:20Z") + duration("1h"))')).toBe('2023-02-04T00:31:20Z');
  });
});
