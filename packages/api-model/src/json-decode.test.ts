import { JsonDecodeError, decodeJson, maxNestingDepth } from './json-decode.js';
import { encodeJson } from './json-encode.js';

function errorOf(text: string, opts = {}): JsonDecodeError {
  try {
    decodeJson(text, opts);
  } catch (err) {
    if (err instanceof JsonDecodeError) return err;
    throw err;
  }
  throw new Error(`decoded ${JSON.stringify(text)}`);
}

describe('decodeJson', () => {
  it('gives what JSON.parse gives for ordinary JSON', () => {
    const text = '{"a":[1,-2.5e3,true,null,"x\\n\\u00e9"],"b":{"c":{}},"d":[],"__proto__":{"x":1}}';
    const { value } = decodeJson(text);
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toContain('__proto__');
  });

  it('keeps integers within int64 exact, as bigint beyond 2^53', () => {
    const { value } = decodeJson('{"seed":9007199254740993,"min":-9223372036854775808,"max":9223372036854775807,"safe":9007199254740991}');
    expect(value).toEqual({ seed: 9007199254740993n, min: -9223372036854775808n, max: 9223372036854775807n, safe: 9007199254740991 });
  });

  it('decodes integers beyond int64 as float64 (Go unstructured), or exactly when asked', () => {
    expect(decodeJson('[1208925819614629174706176]').value).toEqual([1.2089258196146292e24]);
    expect(decodeJson('[1208925819614629174706176]', { beyondInt64: 'exact' }).value).toEqual([1208925819614629174706176n]);
  });

  it('refuses a number beyond float64 as Go does', () => {
    expect(errorOf('{"a":1e400}').message).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(errorOf(`[${'9'.repeat(400)}]`).code).toBe('number');
  });

  it('reports repeated keys by path, once each', () => {
    const { value, duplicates } = decodeJson('{"a":1,"a":2,"b":[{"c":1,"c":2},{"c":1,"c":2,"c":3}],"m":{"l":{"x":1,"x":1}}}', { findDuplicates: true });
    expect(value).toEqual({ a: 2, b: [{ c: 2 }, { c: 3 }], m: { l: { x: 1 } } });
    expect(duplicates).toEqual(['a', 'b[0].c', 'b[1].c', 'm.l.x']);
    expect(decodeJson('{"a":1,"a":2}').duplicates).toEqual([]);
  });

  it.each([
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['[-x]', "invalid character 'x' in numeric literal"],
    ['[1.x]', "invalid character 'x' after decimal point in numeric literal"],
    ['[1ex]', "invalid character 'x' in exponent of numeric literal"],
    ['[tru]', "invalid character ']' in literal true (expecting 'e')"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
  ])('words the syntax error in %j as Go does', (text, message) => {
    const err = errorOf(text);
    expect(err.code).toBe('syntax');
    expect(err.message).toBe(message);
  });

  it('stops at the nesting limit with Go\'s message, in linear time, without recursion', () => {
    const ok = `${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}`;
    expect(() => decodeJson(ok)).not.toThrow();
    const deep = `${'['.repeat(maxNestingDepth + 1)}${']'.repeat(maxNestingDepth + 1)}`;
    expect(errorOf(deep).message).toBe('exceeded max depth');
    const huge = `{"a":${'{"a":'.repeat(500_000)}1${'}'.repeat(500_001)}`;
    expect(errorOf(huge)).toMatchObject({ code: 'depth', message: 'exceeded max depth' });
    expect(errorOf('['.repeat(2_000_000)).code).toBe('depth');
    expect(errorOf('[[]]', { maxDepth: 1 }).code).toBe('depth');
  });
});

describe('encodeJson', () => {
  it('writes bigint integers as JSON numbers, compact and indented like JSON.stringify', () => {
    const text = '{"a":9007199254740993,"b":[-9223372036854775808,1.5,"s",null,{}],"c":{"d":[]}}';
    const value = decodeJson(text).value;
    expect(encodeJson(value)).toBe(text);
    const plain = JSON.parse(text.replace(/9007199254740993|-9223372036854775808/g, '7')) as unknown;
    expect(encodeJson(value, 2).replace(/9007199254740993|-9223372036854775808/g, '7')).toBe(JSON.stringify(plain, null, 2));
  });

  it('skips undefined members and calls toJSON as JSON.stringify does', () => {
    const value = { a: undefined, b: 1n << 60n, c: new Date(0), d: [undefined] };
    expect(encodeJson(value)).toBe('{"b":1152921504606846976,"c":"1970-01-01T00:00:00.000Z","d":[null]}');
  });
});
