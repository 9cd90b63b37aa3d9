import { maxNestingDepth } from './json-decode.js';
import { YamlDecodeError, decodeYaml } from './yaml-decode.js';

function errorOf(text: string): YamlDecodeError {
  try {
    decodeYaml(text);
  } catch (err) {
    if (err instanceof YamlDecodeError) return err;
    throw err;
  }
  throw new Error(`decoded ${JSON.stringify(text)}`);
}

describe('decodeYaml', () => {
  it('decodes a document into a plain tree, integers exact', () => {
    const { value } = decodeYaml('a: 1\nb: [x, {c: 9007199254740993}]\nbig: 1208925819614629174706176\nf: 1.5\n');
    expect(value).toEqual({ a: 1, b: ['x', { c: 9007199254740993n }], big: 1.2089258196146292e24, f: 1.5 });
    expect(decodeYaml('big: 1208925819614629174706176', { beyondInt64: 'exact' }).value).toEqual({ big: 1208925819614629174706176n });
    expect(decodeYaml('').value).toBeNull();
  });

  it('expands aliases into copies, so no two paths share an object', () => {
    const { value } = decodeYaml('a: &x {k: v}\nb: *x\n') as { value: { a: object; b: object } };
    expect(value).toEqual({ a: { k: 'v' }, b: { k: 'v' } });
    expect(value.a).not.toBe(value.b);
  });

  it('refuses alias bombs, infinities and more than one document', () => {
    const bomb = ['a: &a [x,x,x,x,x,x,x,x,x]'];
    for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    expect(errorOf(bomb.join('\n'))).toMatchObject({ code: 'alias', message: 'yaml: document contains excessive aliasing' });
    expect(errorOf('a: .inf').message).toBe('json: unsupported value: +Inf');
    expect(errorOf('a: 1\n---\nb: 2\n').code).toBe('syntax');
    expect(errorOf('a: [unclosed').message).toMatch(/^yaml: line 1: /);
  });

  it('bounds nesting of flow, block and aliased collections before the library recurses', () => {
    const ok = `${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}`;
    expect(() => decodeYaml(ok)).not.toThrow();
    for (const text of [
      `${'['.repeat(maxNestingDepth + 1)}${']'.repeat(maxNestingDepth + 1)}`,
      '['.repeat(3_000_000),
      '- '.repeat(1_000_000),
      Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'),
      // Each anchor adds 200 levels to the one before: shallow text, deep value.
      `a: &a ${'['.repeat(200)}${']'.repeat(200)}\nb: &b ${'['.repeat(200)}*a${']'.repeat(200)}\n`,
    ]) {
      const started = performance.now();
      expect(errorOf(text)).toMatchObject({ code: 'depth', message: `yaml: exceeded max depth of ${maxNestingDepth}` });
      expect(performance.now() - started).toBeLessThan(3000);
    }
  });

  it('words repeated keys as go-yaml strict mode does', () => {
    const { value, duplicates } = decodeYaml('a: 1\nb:\n  c: 1\n  c: 2\na: 3\n', { findDuplicates: true });
    expect(value).toEqual({ a: 3, b: { c: 2 } });
    expect(duplicates).toEqual(['yaml: unmarshal errors:\n  line 4: key "c" already set in map\n  line 5: key "a" already set in map']);
  });
});
