import { clusterTrustBundleFields, clusterTrustBundleSelectableFields, type ClusterTrustBundle } from './cluster-trust-bundle.js';
import { FieldSelector, escapeFieldSelectorValue, parseFieldSelector, unescapeFieldSelectorValue } from './field-selector.js';
import { SelectorError } from './selector-error.js';

describe('field selector parsing', () => {
  it.each([
    ['', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    ['spec.signerName=example.com/signer', 'spec.signerName=example.com/signer'],
    ['z=1,a=2', 'a=2,z=1'],
    ['a=,b!=', 'a=,b!='],
    ['a=b,', 'a=b'],
    [',,a=b', 'a=b'],
    ['x=a\\,b', 'x=a\\,b'],
    ['x=a\\=b\\\\c', 'x=a\\=b\\\\c'],
    ['a!b=c', 'a!b=c'],
    ['=b', '=b'],
  ])('parses %j into %j', (input, canonical) => {
    expect(parseFieldSelector(input).toString()).toBe(canonical);
  });

  it('splits a term at the first operator', () => {
    expect(parseFieldSelector('a!=b').requirements()).toEqual([{ field: 'a', operator: '!=', value: 'b' }]);
    expect(parseFieldSelector('a==b').requirements()).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
  });

  it.each([
    ['foo', "invalid selector: 'foo'; can't understand 'foo'"],
    ['field,', "invalid selector: 'field,'; can't understand 'field'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\,c,d=e,f', "invalid selector: 'a=b\\,c,d=e,f'; can't understand 'f'"],
    ['a=x\\y', 'invalid field selector: invalid escape sequence: \\y'],
    ['a=x\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a==b==c', 'invalid field selector: unescaped character in value: 61'],
  ])('rejects %j with Kubernetes\' message', (input, message) => {
    let caught: unknown;
    try {
      parseFieldSelector(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    expect((caught as SelectorError).message).toBe(message);
    expect((caught as SelectorError).code).toBe('InvalidFieldSelector');
  });

  it('reports the first failing term in sorted order', () => {
    // Terms are sorted before parsing, as Kubernetes does.
    expect(() => parseFieldSelector('zzz,aaa')).toThrow("invalid selector: 'zzz,aaa'; can't understand 'aaa'");
  });
});

describe('field selector values', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['back\\slash', 'back\\\\slash'],
    ['\\,=', '\\\\\\,\\='],
    ['', ''],
  ])('escapes %j as %j and back', (literal, escaped) => {
    expect(escapeFieldSelectorValue(literal)).toBe(escaped);
    expect(unescapeFieldSelectorValue(escaped)).toBe(literal);
  });

  it('round-trips any value through a selector', () => {
    const values = ['', 'a', 'a,b=c\\d', '==', ',,,', 'ünïcödé,=', 'x\\'];
    for (const v of values) {
      const sel = parseFieldSelector(`f=${escapeFieldSelectorValue(v)}`);
      expect(sel.requiresExactMatch('f')).toBe(v);
      expect(sel.matches({ f: v })).toBe(true);
      expect(parseFieldSelector(sel.toString()).requiresExactMatch('f')).toBe(v);
    }
  });

  it('rejects a bare comma inside a value given to unescape', () => {
    expect(() => unescapeFieldSelectorValue('a,b')).toThrow('invalid field selector: unescaped character in value: 44');
  });
});

describe('field selector matching', () => {
  const fields = { 'metadata.name': 'web', 'spec.signerName': 'example.com/s' };

  it.each([
    ['', true],
    ['metadata.name=web', true],
    ['metadata.name==web', true],
    ['metadata.name=db', false],
    ['metadata.name!=db', true],
    ['metadata.name!=web', false],
    ['spec.signerName=example.com/s,metadata.name=web', true],
    ['spec.signerName=example.com/s,metadata.name=db', false],
    ['missing=', true],
    ['missing!=', false],
    ['missing=x', false],
    ['missing!=x', true],
  ])('%j matches: %s', (selector, expected) => {
    expect(parseFieldSelector(selector).matches(fields)).toBe(expected);
  });

  it('matches ClusterTrustBundles by signer', () => {
    const ctb = (name: string, signerName?: string): ClusterTrustBundle => ({
      metadata: { name },
      spec: { trustBundle: '', ...(signerName === undefined ? {} : { signerName }) },
    });
    const objects = [ctb('a'), ctb('example.com:s:b', 'example.com/s'), ctb('other.io:x:c', 'other.io/x')];
    const bySigner = parseFieldSelector('spec.signerName=example.com/s').checkSupportedFields(clusterTrustBundleSelectableFields);
    expect(objects.filter((o) => bySigner.matches(clusterTrustBundleFields(o))).map((o) => o.metadata?.name)).toEqual([
      'example.com:s:b',
    ]);
    const noSigner = parseFieldSelector('spec.signerName=');
    expect(objects.filter((o) => noSigner.matches(clusterTrustBundleFields(o))).map((o) => o.metadata?.name)).toEqual(['a']);
  });

  it('rejects fields the resource does not support', () => {
    expect(() => parseFieldSelector('spec.trustBundle=x').checkSupportedFields(clusterTrustBundleSelectableFields)).toThrow(
      'field label not supported: spec.trustBundle',
    );
  });
});

describe('field selector helpers', () => {
  it('builds from a set and combines selectors', () => {
    const sel = FieldSelector.and(FieldSelector.fromSet({ a: '1' }), parseFieldSelector('b!=2'));
    expect(sel.toString()).toBe('a=1,b!=2');
    expect(sel.matches({ a: '1', b: '3' })).toBe(true);
    expect(sel.matches({ a: '1', b: '2' })).toBe(false);
    expect(FieldSelector.fromSet(null).isEmpty()).toBe(true);
    expect(FieldSelector.everything().matches({})).toBe(true);
  });

  it('answers requiresExactMatch for equality terms only', () => {
    const sel = parseFieldSelector('a=1,b!=2');
    expect(sel.requiresExactMatch('a')).toBe('1');
    expect(sel.requiresExactMatch('b')).toBeUndefined();
  });

  it('transforms terms and drops those rewritten to nothing', () => {
    const sel = parseFieldSelector('old=1,drop=x').transform((field, value) =>
      field === 'drop' ? { field: '', value: '' } : { field: field === 'old' ? 'new' : field, value },
    );
    expect(sel.toString()).toBe('new=1');
  });
});

describe('field selector robustness', () => {
  it('never throws anything but SelectorError and prints what it parsed', () => {
    const alphabet = ['a', 'b.c', '=', '!', ',', '\\', ' ', 'ü', '==', '!='];
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const len = rand(10);
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      try {
        const sel = parseFieldSelector(s);
        // Printing normalises == to =, which can change the sorted order of terms, not their set.
        const terms = (x: FieldSelector) => x.requirements().map((r) => JSON.stringify(r)).sort();
        expect(terms(parseFieldSelector(sel.toString()))).toEqual(terms(sel));
      } catch (err) {
        expect(err).toBeInstanceOf(SelectorError);
      }
    }
  });
});
