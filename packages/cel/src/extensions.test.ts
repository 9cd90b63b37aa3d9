import { compile, CelTypes } from './compile.js';

function run(expr: string, claims: Record<string, unknown> = {}): unknown {
  const result = compile('claims', expr, [CelTypes.Any]);
  if (!result.ok) throw new Error(result.issue.detail);
  return result.program.evaluate({ claims });
}

describe('Kubernetes CEL library functions registered on top of cel-js', () => {
  it('completes the strings extension', () => {
    expect(run('"héllo".charAt(1)')).toBe('é');
    expect(run('"hello".charAt(5)')).toBe('');
    expect(() => run('"hello".charAt(6)')).toThrow(/index out of range: 6/);
    expect(run('"a-b-c".replace("-", "+")')).toBe('a+b+c');
    expect(run('"a-b-c".replace("-", "+", 1)')).toBe('a+b-c');
    expect(run('"ab".replace("", "_")')).toBe('_a_b_');
    expect(run('"abc".reverse()')).toBe('cba');
    expect(run('strings.quote("a\\"b\\n")')).toBe('"a\\"b\\n"');
    expect(run('"%s is %d years, %.2f%% sure, hex %x".format(["alice", 30, 99.5, 255])')).toBe('alice is 30 years, 99.50% sure, hex ff');
    expect(run('"%s".format([["a", "b"]])')).toBe('[a, b]');
    expect(() => run('"%d".format(["x"])')).toThrow(/decimal clause can only be used on ints, uints, and doubles, was given string/);
    expect(run('" x ".trim().upperAscii()')).toBe('X');
  });

  it('adds the list library', () => {
    expect(run('[1, 2, 3].isSorted() && ![2, 1].isSorted()')).toBe(true);
    expect(run('[1, 2, 3].sum()')).toBe(6n);
    expect(run('[1.5, 2.5].sum()')).toBe(4);
    expect(run('["b", "a", "c"].min() + ["b", "a", "c"].max()')).toBe('ac');
    expect(() => run('claims.empty.min()', { empty: [] })).toThrow(/must not be empty/);
    expect(run('["a", "b", "a"].indexOf("a")')).toBe(0n);
    expect(run('["a", "b", "a"].lastIndexOf("a")')).toBe(2n);
    expect(run('claims.groups.indexOf("x")', { groups: ['a'] })).toBe(-1n);
  });

  it('adds the sets extension', () => {
    expect(run('sets.contains(["a", "b"], ["a"])')).toBe(true);
    expect(run('sets.contains(["a"], ["a", "b"])')).toBe(false);
    expect(run('sets.equivalent(["a", "b", "b"], ["b", "a"])')).toBe(true);
    expect(run('sets.intersects(claims.groups, ["admins", "ops"])', { groups: ['dev', 'ops'] })).toBe(true);
  });

  it('matches with RE2: linear time on a pathological pattern, RE2 syntax, global form', () => {
    const started = performance.now();
    expect(run('claims.name.matches("^(a+)+$")', { name: `${'a'.repeat(5_000)}b` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(run('"ABC".matches("(?i)^abc$")')).toBe(true);
    expect(run('matches("plat-admin", "^plat-")')).toBe(true);
    expect(run('"xabcx".matches("abc")')).toBe(true);
    const bad = compile('claims', 'claims.sub.matches("(a")', [CelTypes.Bool]);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issue.detail).toBe(
        'compilation failed: ERROR: <input>:1:20: invalid matches argument: error parsing regexp: missing closing ): `(a`\n | claims.sub.matches("(a")\n | ...................^',
      );
    }
    expect(() => run('claims.sub.matches(claims.pattern)', { sub: 'x', pattern: '(' })).toThrow(/invalid matches argument/);
  });

  it('adds regex find/findAll and base64', () => {
    expect(run('"abc 123 def 456".find("[0-9]+")')).toBe('123');
    expect(run('"abc".find("[0-9]+")')).toBe('');
    expect(run('"abc 123 def 456".findAll("[0-9]+")')).toEqual(['123', '456']);
    expect(run('"1 2 3".findAll("[0-9]", 2)')).toEqual(['1', '2']);
    expect(run('"Ab aB".findAll("(?i)ab")')).toEqual(['Ab', 'aB']);
    const started = performance.now();
    expect(run('claims.s.find("^(a+)+$")', { s: `${'a'.repeat(5_000)}b` })).toBe('');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(run('base64.encode(b"hello")')).toBe('aGVsbG8=');
    expect(run('base64.decode("aGVsbG8=") == b"hello"')).toBe(true);
    expect(() => run('base64.decode("not base64!")')).toThrow(/illegal base64 data/);
  });
});
