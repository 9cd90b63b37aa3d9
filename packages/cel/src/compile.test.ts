import { compile, CelTypes, type CelProgram } from './compile.js';
import { CelBudgetExceededError, CelEvaluationError } from './errors.js';
import { requestActivation, userActivation } from './values.js';

function program(env: 'claims' | 'user' | 'request', expr: string, types: string[] = [CelTypes.Any]): CelProgram {
  const result = compile(env, expr, types);
  if (!result.ok) throw new Error(`unexpected compile failure: ${result.issue.detail}`);
  return result.program;
}

const claims = {
  iss: 'https://issuer.example',
  sub: 'alice',
  email: 'Alice@Example.com',
  email_verified: true,
  groups: ['dev', 'ops'],
  aud: ['plat'],
  exp: 1900000000,
  nested: { team: 'core' },
};

describe('claims environment', () => {
  it('maps claims with string functions and comprehension macros', () => {
    expect(program('claims', 'claims.sub + ":" + claims.email.lowerAscii()').evaluate({ claims })).toBe('alice:alice@example.com');
    expect(program('claims', 'claims.groups.filter(g, g != "ops").map(g, "oidc:" + g)').evaluate({ claims })).toEqual(['oidc:dev']);
    expect(program('claims', 'claims.groups.all(g, size(g) == 3) && claims.groups.exists_one(g, g == "dev")').evaluate({ claims })).toBe(true);
    expect(program('claims', '"a,b,c".split(",").join("-")').evaluate({ claims })).toBe('a-b-c');
    expect(program('claims', 'claims.email.indexOf("@")').evaluate({ claims })).toBe(5n);
    expect(program('claims', 'claims.email.replace("Example", "example")').evaluate({ claims })).toBe('Alice@example.com');
  });

  it('supports optionals, has() and optional.of', () => {
    expect(program('claims', 'claims.?email_verified.orValue(false)').evaluate({ claims: { sub: 'x' } })).toBe(false);
    expect(program('claims', 'claims.?nested.?team.orValue("none")').evaluate({ claims })).toBe('core');
    expect(program('claims', 'has(claims.email) ? "yes" : "no"').evaluate({ claims: {} })).toBe('no');
    expect(program('claims', 'optional.of(claims.sub).hasValue()').evaluate({ claims })).toBe(true);
    expect(program('claims', 'optional.ofNonZeroValue("").hasValue()').evaluate({ claims })).toBe(false);
  });

  it('sees whole JSON numbers as int, as Kubernetes does for claims', () => {
    expect(program('claims', 'claims.exp + 1').evaluate({ claims })).toBe(1900000001n);
    expect(program('claims', 'type(claims.exp) == int').evaluate({ claims })).toBe(true);
  });

  it('compiles mappings as dyn but validation rules must type-check to bool', () => {
    const mapping = compile('claims', 'claims.?email_verified.orValue(true)', [CelTypes.Any]);
    expect(mapping.ok).toBe(true);
    const rule = compile('claims', 'claims.?email_verified.orValue(true)', [CelTypes.Bool]);
    expect(rule).toEqual({ ok: false, issue: { type: 'Invalid', detail: 'must evaluate to bool' } });
    expect(compile('claims', 'claims.?email_verified.orValue(true) == true', [CelTypes.Bool]).ok).toBe(true);
    expect(compile('claims', '"x"', [CelTypes.String, CelTypes.StringList])).toEqual({ ok: true, program: expect.anything() });
    expect(compile('claims', '1', [CelTypes.String, CelTypes.StringList])).toEqual({
      ok: false,
      issue: { type: 'Invalid', detail: 'must evaluate to one of [string list(string)]' },
    });
  });

  it('reports syntax errors and undeclared references the way cel-go prints them', () => {
    const syntax = compile('claims', 'claims.sub ==', [CelTypes.Any]);
    expect(syntax.ok).toBe(false);
    if (!syntax.ok) {
      expect(syntax.issue.type).toBe('Invalid');
      expect(syntax.issue.detail).toMatch(/^compilation failed: ERROR: <input>:1:14: .+\n \| claims\.sub ==\n \| \.{13}\^$/);
    }
    const undeclared = compile('claims', 'claimz.sub', [CelTypes.Any]);
    expect(undeclared.ok).toBe(false);
    if (!undeclared.ok) expect(undeclared.issue.detail).toContain('ERROR: <input>:1:1: Unknown variable: claimz');
    const badType = compile('claims', '1 + "a"', [CelTypes.Any]);
    expect(badType.ok).toBe(false);
  });

  it('rejects expressions nested deeper than the parse limits, without crashing', () => {
    const deep = compile('claims', `${'('.repeat(5_000)}1${')'.repeat(5_000)}`, [CelTypes.Any]);
    expect(deep.ok).toBe(false);
    if (!deep.ok) expect(deep.issue.detail).toMatch(/^compilation failed: ERROR: <input>:1:\d+: /);
    const wide = compile('claims', `[${Array.from({ length: 2_000 }, (_, i) => i).join(', ')}]`, [CelTypes.Any]);
    expect(wide.ok).toBe(false);
    expect(compile('claims', `${'('.repeat(20)}1${')'.repeat(20)}`, [CelTypes.Any]).ok).toBe(true);
  });

  it('rejects empty and oversized expressions', () => {
    expect(compile('claims', '  ', [CelTypes.Any])).toEqual({ ok: false, issue: { type: 'Required', detail: 'expression is required' } });
    const long = compile('claims', `"${'a'.repeat(40_000)}"`, [CelTypes.Any]);
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.issue.detail).toMatch(/^expression is too long: 40002 characters, at most 32768$/);
  });

  it('finds selections of claims.email and claims.email_verified, including optional and has() forms', () => {
    expect(program('claims', 'claims.email').selects('claims', 'email')).toBe(true);
    expect(program('claims', 'claims.?email.orValue("")').selects('claims', 'email')).toBe(true);
    expect(program('claims', 'has(claims.email_verified) && claims.sub == "a"', ['bool']).selects('claims', 'email_verified')).toBe(true);
    expect(program('claims', '[claims.sub].map(x, x + "v")').selects('claims', 'email_verified')).toBe(false);
    expect(program('claims', 'claims.groups.exists(g, claims.email_verified == true)', ['bool']).selects('claims', 'email_verified')).toBe(true);
    expect(program('claims', 'claims["email"]').selects('claims', 'email')).toBe(false);
    expect(program('claims', 'claims.emails').selects('claims', 'email')).toBe(false);
  });

  it('raises a typed error for a missing claim', () => {
    const p = program('claims', 'claims.missing');
    expect(() => p.evaluate({ claims })).toThrow(CelEvaluationError);
    try {
      p.evaluate({ claims });
    } catch (error) {
      expect((error as CelEvaluationError).code).toBe('no_such_key');
      expect((error as CelEvaluationError).message).toBe('No such key: missing');
    }
  });
});

describe('bounded evaluation', () => {
  it('stops a runaway comprehension at the step budget', () => {
    const result = compile('claims', 'claims.groups.map(a, claims.groups.map(b, claims.groups.map(c, a + b + c))).size()', [CelTypes.Any], {
      budget: { maxSteps: 5_000 },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const big = { groups: Array.from({ length: 100 }, (_, i) => `g${i}`) };
    expect(() => result.program.evaluate({ claims: big })).toThrow(CelBudgetExceededError);
    expect(() => result.program.evaluate({ claims: big })).toThrow(/actual cost limit exceeded/);
    // The same program within budget on a small input, and the budget resets per evaluation.
    expect(result.program.evaluate({ claims: { groups: ['a', 'b'] } })).toBe(2n);
    expect(result.program.lastSteps()).toBeGreaterThan(10);
    expect(result.program.lastSteps()).toBeLessThan(5_000);
  });

  it('stops an evaluation that exceeds its time budget', () => {
    const result = compile('claims', 'claims.groups.all(a, claims.groups.all(b, claims.groups.all(c, (a + b + c).size() > 0)))', [CelTypes.Bool], {
      budget: { maxSteps: 1e12, maxMilliseconds: 20 },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const big = { groups: Array.from({ length: 400 }, (_, i) => `group-${i}`) };
    const started = performance.now();
    expect(() => result.program.evaluate({ claims: big })).toThrow(/evaluation took longer than 20ms/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('user environment', () => {
  it('type-checks user fields', () => {
    const p = program('user', '!user.username.startsWith("system:") && user.groups.all(g, g != "system:masters")', ['bool']);
    expect(p.evaluate(userActivation({ username: 'alice', groups: ['dev'] }))).toBe(true);
    expect(p.evaluate(userActivation({ username: 'system:admin' }))).toBe(false);
    expect(program('user', 'user.extra["example.com/team"]').evaluate(userActivation({ extra: { 'example.com/team': ['core'] } }))).toEqual([
      'core',
    ]);
    const unknownField = compile('user', 'user.name == "x"', ['bool']);
    expect(unknownField.ok).toBe(false);
    if (!unknownField.ok) expect(unknownField.issue.detail).toContain('No such key: name');
    expect(compile('user', 'claims.sub == "x"', ['bool']).ok).toBe(false);
  });
});

describe('request environment', () => {
  it('evaluates match conditions over a SubjectAccessReviewSpec', () => {
    const p = program('request', "has(request.resourceAttributes) && request.resourceAttributes.verb in ['update', 'patch']", ['bool']);
    expect(p.evaluate(requestActivation({ user: 'alice', resourceAttributes: { verb: 'patch', resource: 'pods' } }))).toBe(true);
    expect(p.evaluate(requestActivation({ user: 'alice', nonResourceAttributes: { path: '/healthz', verb: 'get' } }))).toBe(false);
    const selector = program(
      'request',
      'request.resourceAttributes.?fieldSelector.?requirements.orValue([]).exists(r, r.key == "spec.signerName")',
      ['bool'],
    );
    expect(
      selector.evaluate(
        requestActivation({
          resourceAttributes: { verb: 'list', fieldSelector: { requirements: [{ key: 'spec.signerName', operator: 'In', values: ['a'] }] } },
        }),
      ),
    ).toBe(true);
  });

  it('names the type it got when a condition is not bool', () => {
    expect(compile('request', 'request.user', ['bool'])).toEqual({
      ok: false,
      issue: { type: 'Invalid', detail: 'must evaluate to bool but got string' },
    });
  });
});

// Kubernetes' TestToken (staging/src/k8s.io/apiserver/plugin/pkg/authenticator/token/oidc/oidc_test.go),
// the "claim mappings with expressions and deeply nested claim" cases.
describe('escaped names and open optionals, as cel-go and Kubernetes give them', () => {
  const payload = {
    'kubernetes.io': { namespace: 'kube-system', node: { name: '127.0.0.1' } },
    turtle: { bar: { 'username.io': { 'company.io': 'fun-corp' }, link: [{ 'uid.io': '143' }] } },
    data: [{ 'groups.io': 'gen1' }],
  };

  it('reaches dotted claim keys at every depth through __dot__', () => {
    expect(program('claims', 'claims.kubernetes__dot__io.namespace').evaluate({ claims: payload })).toBe('kube-system');
    expect(program('claims', 'claims["kubernetes__dot__io"]["node"]["name"]').evaluate({ claims: payload })).toBe('127.0.0.1');
    expect(program('claims', 'claims.turtle.bar.username__dot__io.company__dot__io').evaluate({ claims: payload })).toBe('fun-corp');
    expect(program('claims', 'claims.data[0].groups__dot__io').evaluate({ claims: payload })).toBe('gen1');
    expect(program('claims', 'has(claims.turtle.bar.link[0].uid__dot__io)', [CelTypes.Bool]).evaluate({ claims: payload })).toBe(true);
    expect(program('claims', 'claims.turtle.bar.?nope__dot__io.orValue("x")').evaluate({ claims: payload })).toBe('x');
  });

  it('reaches dotted user.extra keys through __dot__ and __slash__', () => {
    const rule = program('user', 'user.extra.bio__dot__snorlax__dot__org__slash__3.size() == 4', [CelTypes.Bool]);
    expect(rule.evaluate(userActivation({ extra: { 'bio.snorlax.org/3': ['true', 'a', 'b', 'c'] } }))).toBe(true);
    expect(() => rule.evaluate(userActivation({}))).toThrow(CelEvaluationError);
  });

  it('types orValue(v) as v when the optional value type is still open', () => {
    const rule = compile('claims', 'claims[?"kubernetes.io"]["node"]["ip"].orValue(true)', [CelTypes.Bool]);
    if (!rule.ok) throw new Error(rule.issue.detail);
    expect(rule.program.evaluate({ claims: payload })).toBe(true);
    // The value, when present, is what the claims hold: the caller checks its type.
    expect(rule.program.evaluate({ claims: { 'kubernetes.io': { node: { ip: '10.0.0.1' } } } })).toBe('10.0.0.1');
    expect(compile('claims', 'claims.a.orValue(true)', [CelTypes.Bool]).ok).toBe(true);
    expect(compile('claims', 'optional.none().orValue(true)', [CelTypes.Bool]).ok).toBe(true);
  });

  it('still refuses orValue(true) as a rule where cel-go already bound the value type to dyn', () => {
    for (const expression of ['claims.?a.orValue(true)', 'claims[?"a"].orValue(true)', 'claims.?a.?b.orValue(true)', 'claims[?"a"]["b"].orValue(claims.c)']) {
      expect(compile('claims', expression, [CelTypes.Bool])).toEqual({ ok: false, issue: { type: 'Invalid', detail: 'must evaluate to bool' } });
    }
  });
});
