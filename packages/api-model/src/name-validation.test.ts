import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, regexError } from './dns-validation.js';
import { isQualifiedName, isValidLabelValue, validateLabels } from './label-validation.js';
import { maskTrailingDash, nameIsDNSLabel, nameIsDNSSubdomain, validatePathSegmentName } from './name-validation.js';

const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('DNS-1123 labels', () => {
  it.each(['a', '0', 'abc-123', 'a'.repeat(63), '1-2-3', 'x--y'])('accepts %j', (v) => {
    expect(isDNS1123Label(v)).toEqual([]);
  });

  it.each(['', '-a', 'a-', 'A', 'a_b', 'ü', ' a', 'a\n'])('rejects %j with the regex message', (v) => {
    expect(isDNS1123Label(v)).toEqual([labelMsg]);
  });

  it('says "must not contain dots" for a subdomain', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
  });

  it('limits the length to 63 characters', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Label(`-${'a'.repeat(63)}`)).toEqual(['must be no more than 63 characters', labelMsg]);
  });
});

describe('DNS-1123 subdomains', () => {
  it.each(['a', 'example.com', 'a.b.c', 'x-1.y-2', 'a'.repeat(253), `${'a'.repeat(63)}.${'b'.repeat(63)}`])('accepts %j', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });

  it.each(['', '.', 'a.', '.a', 'a..b', 'A.com', 'a_b.com', 'a.-b', 'a-.b'])('rejects %j', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([subdomainMsg]);
  });

  it('limits the length to 253 characters', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });

  it('does not backtrack on long hostile input', () => {
    const hostile = `${'a-'.repeat(500_000)}.`;
    const start = Date.now();
    expect(isDNS1123Subdomain(hostile)).toHaveLength(2);
    expect(Date.now() - start).toBeLessThan(2000);
  });
});

describe('DNS-1035 labels', () => {
  it('requires a leading letter', () => {
    expect(isDNS1035Label('abc-1')).toEqual([]);
    expect(isDNS1035Label('1abc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('regexError', () => {
  it('prints examples the way Kubernetes does, double space and all', () => {
    expect(regexError('m', 'f')).toBe("m (regex used for validation is 'f')");
    expect(regexError('m', 'f', 'a')).toBe("m (e.g. 'a', regex used for validation is 'f')");
    expect(regexError('m', 'f', 'a', 'b')).toBe("m (e.g. 'a',  or 'b', regex used for validation is 'f')");
  });
});

describe('qualified names (label keys)', () => {
  it.each(['a', 'A.b_c-9', 'example.com/Key', 'k'.repeat(63), `${'a'.repeat(253)}/x`])('accepts %j', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });

  it('explains each part', () => {
    expect(isQualifiedName('')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('example.com/')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName(`${'a'.repeat(254)}/x`)).toEqual(['prefix part must be no more than 253 bytes']);
    expect(isQualifiedName('k'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
  });
});

describe('label values', () => {
  it('accepts empty and name-like values', () => {
    for (const v of ['', 'a', 'My_value-1.2', 'v'.repeat(63)]) expect(isValidLabelValue(v)).toEqual([]);
  });

  it('rejects other values', () => {
    expect(isValidLabelValue('v'.repeat(64))).toEqual(['must be no more than 63 bytes']);
    expect(isValidLabelValue('a b')).toHaveLength(1);
    expect(isValidLabelValue('-a')).toHaveLength(1);
  });

  it('validates a label map on the map path', () => {
    expect(validateLabels({ ok: 'v', 'bad key': 'x' }, 'metadata.labels').map(String)).toEqual([
      `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
    expect(validateLabels(undefined, 'x')).toEqual([]);
  });
});

describe('object name rules', () => {
  it('masks a trailing dash of a generateName prefix as Kubernetes does', () => {
    expect(maskTrailingDash('abc-')).toBe('aba');
    expect(maskTrailingDash('ab-')).toBe('aa');
    expect(maskTrailingDash('abc')).toBe('abc');
    expect(maskTrailingDash('-')).toBe('-');
  });

  it('allows a trailing dash only for prefixes', () => {
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([subdomainMsg]);
    expect(nameIsDNSLabel('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('-', true)).toEqual([subdomainMsg]);
  });
});

describe('path segment names', () => {
  it('rejects names that cannot sit in a URL path', () => {
    expect(validatePathSegmentName('ok:name', false)).toEqual([]);
    expect(validatePathSegmentName('..', false)).toEqual(["may not be '..'"]);
    expect(validatePathSegmentName('.', false)).toEqual(["may not be '.'"]);
    expect(validatePathSegmentName('a/b%c', false)).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(validatePathSegmentName('..', true)).toEqual([]);
    expect(validatePathSegmentName('a%', true)).toEqual(["may not contain '%'"]);
  });
});
