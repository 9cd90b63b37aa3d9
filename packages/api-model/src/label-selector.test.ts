import { FieldPath } from './field-path.js';
import { newLabelRequirement, validateLabelRequirement } from './label-requirement.js';
import { LabelSelector, parseLabelSelector } from './label-selector.js';
import { SelectorError } from './selector-error.js';

function parseError(selector: string): SelectorError {
  try {
    parseLabelSelector(selector);
  } catch (err) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error(`selector ${JSON.stringify(selector)} parsed without error`);
}

const nameRegexMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selector parsing', () => {
  it.each([
    ['', ''],
    ['   ', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a==b'],
    ['a!=b', 'a!=b'],
    ['a in (x,y)', 'a in (x,y)'],
    ['a in (y,x,x)', 'a in (x,y)'],
    ['a notin (x)', 'a notin (x)'],
    ['a', 'a'],
    ['!a', '!a'],
    ['a>1', 'a>1'],
    ['a<3', 'a<3'],
    ['z=1,a=2, m in (q)', 'a=2,m in (q),z=1'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['a=', 'a='],
    ['a=,b', 'a=,b'],
    ['example.com/key=v', 'example.com/key=v'],
    ['in in (in, notin)', 'in in (in,notin)'],
    ['\ta\n=\r b ', 'a=b'],
  ])('parses %j into the canonical %j', (input, canonical) => {
    expect(parseLabelSelector(input).toString()).toBe(canonical);
  });

  it.each([
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['env IN (a)', "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt"],
    ['test-label=====service1', "unable to parse requirement: found '==', expected: identifier"],
    ['app=(', "unable to parse requirement: found '(', expected: identifier"],
    ['type=app,versionv1.0.1)', "unable to parse requirement: found ')', expected: in, notin, =, ==, !=, gt, lt"],
    ['label0==label0, label0 in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in x', "unable to parse requirement: found 'x' expected: '('"],
    ['a in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
    ['a in (x,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a,', "found '', expected: identifier after ','"],
    ['a,,b', "found ',', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!a', "unable to parse requirement: found '!', expected: identifier"],
    ['a>b', "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"],
    // Kubernetes checks a gt/lt value as a label value too, so negative bounds are rejected.
    ['a<-3', `unable to parse requirement: values[0][a]: Invalid value: "-3": ${valueRegexMsg}`],
    ['a<99999999999999999999', "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['-a=b', `unable to parse requirement: <nil>: Invalid value: "-a": ${nameRegexMsg}`],
    ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${valueRegexMsg}`],
    ['a/b/c', `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
    [`${'k'.repeat(64)}`, `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 bytes`],
    [`a=${'v'.repeat(64)}`, `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`],
    ['a in (-x,-y)', `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${valueRegexMsg}, values[1][a]: Invalid value: "-y": ${valueRegexMsg}]`],
  ])('rejects %j with Kubernetes\' message', (input, message) => {
    const err = parseError(input);
    expect(err.message).toBe(message);
    expect(err.code).toBe('InvalidLabelSelector');
  });

  it('joins several problems of one key with "; "', () => {
    expect(parseError('Bad_Prefix/x').message).toBe(
      'unable to parse requirement: <nil>: Invalid value: "Bad_Prefix/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    );
    expect(parseError(`-${'k'.repeat(63)}`).message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-${'k'.repeat(63)}": name part must be no more than 63 bytes; ${nameRegexMsg}`,
    );
  });

  it('reports paths under a given root', () => {
    const root = FieldPath.root('spec', 'selector');
    expect(() => parseLabelSelector('-a', { path: root })).toThrow(
      `unable to parse requirement: spec.selector: Invalid value: "-a": ${nameRegexMsg}`,
    );
    expect(() => parseLabelSelector('a=-b', { path: root })).toThrow(
      `unable to parse requirement: spec.selector.values[0][a]: Invalid value: "-b": ${valueRegexMsg}`,
    );
  });

  it('carries the field errors as causes', () => {
    const err = parseError('a=-b');
    expect(err.causes.map((c) => c.field)).toEqual(['values[0][a]']);
  });

  it('treats a NUL character as Go does: it ends a token and, where a token starts, the input', () => {
    expect(parseLabelSelector('a=b,\0c=d').toString()).toBe('a=b,c=d');
    expect(() => parseLabelSelector('a=b, \0c=d')).toThrow("found '', expected: identifier after ','");
    expect(() => parseLabelSelector('a\0b')).toThrow("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  });

  it('survives hostile input without throwing anything but SelectorError', () => {
    const alphabet = ['a', 'b', '=', '!', '(', ')', ',', ' ', 'in', 'notin', '>', '<', '-', '/', '.', '\0', 'é'];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const len = rand(12);
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      try {
        const sel = parseLabelSelector(s);
        // A parsed selector prints to a form that parses to the same selector.
        expect(parseLabelSelector(sel.toString()).toString()).toBe(sel.toString());
      } catch (err) {
        expect(err).toBeInstanceOf(SelectorError);
      }
    }
  });

  it('parses a long hostile key in linear time', () => {
    const key = `${'a-'.repeat(200_000)}-`;
    const start = process.hrtime.bigint();
    expect(() => parseLabelSelector(key)).toThrow(SelectorError);
    expect(Number(process.hrtime.bigint() - start) / 1e6).toBeLessThan(2000);
  });
});

describe('label selector matching', () => {
  const labels = { app: 'web', tier: 'frontend', replicas: '3', empty: '' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (db,web)', true],
    ['app in (db)', false],
    ['missing in (x)', false],
    ['app notin (db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['empty', true],
    ['empty=', true],
    ['missing=', false],
    ['replicas>2', true],
    ['replicas>3', false],
    ['replicas<4', true],
    ['replicas<3', false],
    ['app>1', false],
    ['missing<10', false],
    ['app=web,tier=frontend', true],
    ['app=web,tier=backend', false],
    ['app in (a,b,c,d,e,web)', true],
    ['app notin (a,b,c,d,e,web)', false],
  ])('%j matches %j: %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('treats absent labels as an empty set', () => {
    expect(parseLabelSelector('!a').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a').matches(null)).toBe(false);
  });

  it('does not see inherited properties as labels', () => {
    expect(parseLabelSelector('constructor').matches({})).toBe(false);
    expect(parseLabelSelector('!toString').matches({})).toBe(true);
  });

  it('compiles once and matches many label sets', () => {
    const sel = parseLabelSelector('app in (web,api),tier!=db,!legacy');
    const sets = Array.from({ length: 1000 }, (_, i) => ({ app: i % 2 ? 'web' : 'batch', tier: i % 3 ? 'web' : 'db' }));
    expect(sets.filter((s) => sel.matches(s))).toHaveLength(sets.filter((_, i) => i % 2 && i % 3).length);
  });
});

describe('label selector helpers', () => {
  it('builds from a set, sorted by key', () => {
    const sel = LabelSelector.fromSet({ b: '2', a: '1' });
    expect(sel.toString()).toBe('a=1,b=2');
    expect(sel.matches({ a: '1', b: '2' })).toBe(true);
    expect(sel.matches({ a: '1' })).toBe(false);
    expect(LabelSelector.fromSet({}).isEmpty()).toBe(true);
    expect(() => LabelSelector.fromSet({ a: '-x' }, { validate: true })).toThrow(`values[0][a]: Invalid value: "-x": ${valueRegexMsg}`);
  });

  it('distinguishes everything from nothing', () => {
    expect(LabelSelector.everything().matches({ a: 'b' })).toBe(true);
    expect(LabelSelector.everything().isEmpty()).toBe(true);
    expect(LabelSelector.nothing().matches({})).toBe(false);
    expect(LabelSelector.nothing().isEmpty()).toBe(false);
    expect(LabelSelector.nothing().matchesNothing()).toBe(true);
    expect(LabelSelector.nothing().toString()).toBe('');
  });

  it('answers requiresExactMatch as Kubernetes does', () => {
    const sel = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5');
    expect(sel.requiresExactMatch('a')).toBe('1');
    expect(sel.requiresExactMatch('b')).toBe('2');
    expect(sel.requiresExactMatch('c')).toBeUndefined();
    expect(sel.requiresExactMatch('d')).toBeUndefined();
    expect(sel.requiresExactMatch('z')).toBeUndefined();
  });

  it('exposes requirements sorted by key with sorted unique values', () => {
    expect(parseLabelSelector('b in (y,x,y),a').requirements()).toEqual([
      expect.objectContaining({ key: 'a', operator: 'exists', values: [] }),
      expect.objectContaining({ key: 'b', operator: 'in', values: ['x', 'y'] }),
    ]);
  });

  it('adds requirements', () => {
    const sel = parseLabelSelector('b=1').add(newLabelRequirement('a', 'in', ['x', 'y']));
    expect(sel.toString()).toBe('a in (x,y),b=1');
    expect(LabelSelector.fromRequirements(sel.requirements()).toString()).toBe('a in (x,y),b=1');
  });

  it('validates requirements like NewRequirement', () => {
    expect(() => newLabelRequirement('a', 'in', [])).toThrow(`values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`);
    expect(() => newLabelRequirement('a', '=', ['x', 'y'])).toThrow(
      'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    );
    expect(() => newLabelRequirement('a', 'exists', ['x'])).toThrow(
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    expect(() => newLabelRequirement('a', 'gt', ['1', '2'])).toThrow(
      `values: Invalid value: []string{"1", "2"}: for 'Gt', 'Lt' operators, exactly one value is required`,
    );
    expect(validateLabelRequirement('a', 'like', []).map(String)).toEqual([
      'operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    ]);
    expect(validateLabelRequirement('-a', 'exists', []).map(String)).toEqual([`key: Invalid value: "-a": ${nameRegexMsg}`]);
  });
});
