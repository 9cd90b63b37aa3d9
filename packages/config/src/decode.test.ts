import { decodeConfigText, maxConfigFileBytes } from './decode.js';

const errors = (text: string) => {
  const r = decodeConfigText(text);
  return r.ok ? [] : r.errors.map(String);
};

describe('strict decoding', () => {
  it('reports duplicate keys with their path, in YAML and JSON', () => {
    expect(errors('a:\n  b: 1\n  b: 2\nc: [{d: 1, d: 2}]\n')).toEqual(['duplicate field "a.b"', 'duplicate field "c[0].d"']);
    expect(errors('{"kind": "x", "kind": "y"}')).toEqual(['duplicate field "kind"']);
  });

  it('reports syntax errors with the line', () => {
    expect(errors('a: [1\nb: 2\n')[0]).toMatch(/^yaml: line \d+: /);
    expect(errors('a: 1\n---\nb: 2\n')[0]).toMatch(/^yaml: line 2: Source contains multiple documents/);
    expect(errors('{"a": 1,}')).toEqual([]); // YAML 1.2 flow maps allow a trailing comma
  });

  it('treats nulls as unset and an empty document as no value', () => {
    expect(decodeConfigText('a:\nb: ~\nc: [1, null]\n')).toEqual({ ok: true, value: { c: [1, null] } });
    expect(decodeConfigText('')).toEqual({ ok: true, value: undefined });
    expect(decodeConfigText('# comment only\n')).toEqual({ ok: true, value: undefined });
  });

  it('bounds alias expansion and file size', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 10; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`);
    expect(errors(`${bomb.join('\n')}\n`)[0]).toMatch(/^yaml: .*[Ee]xcessive alias count/);
    expect(errors(`a: "${'x'.repeat(maxConfigFileBytes)}"\n`)).toEqual([`file is too large: more than ${maxConfigFileBytes} bytes`]);
  });
});

describe('hostile input', () => {
  it('turns absurd nesting into a decode error', () => {
    const r = decodeConfigText(`a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    expect(r.ok).toBe(false);
  });
});
