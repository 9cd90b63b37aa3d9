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
    expect(errors('a: 1\n---\nb: 2\n')).toEqual(['yaml: line 2: the file holds more than one YAML document']);
    expect(errors('{"a": 1,}')).toEqual([]); // YAML 1.2 flow maps allow a trailing comma
  });

  it('reads YAML 1.1 scalars as Kubernetes does (go-yaml v2)', () => {
    expect(decodeConfigText('a: yes\nb: off\nc: 2001-12-14\nd: "yes"\ne: 0x1F\n')).toEqual({
      ok: true,
      value: { a: true, b: false, c: '2001-12-14', d: 'yes', e: 31 },
    });
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
  it('turns absurd nesting into a decode error before building a value (the bounded composer of @plat/api-model/yaml)', () => {
    const message = ['yaml: exceeded max depth of 100'];
    expect(errors(`a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`)).toEqual(message);
    expect(errors(`a: ${'{"b": '.repeat(200)}1${'}'.repeat(200)}\n`)).toEqual(message);
    expect(errors(`a:\n${'- '.repeat(500)}x\n`)).toEqual(message);
    // Deep indentation alone is one level, as go-yaml reads it; beyond the pre-scan's bound it is refused.
    expect(decodeConfigText(`a:\n${' '.repeat(5_000)}b: 1\n`)).toEqual({ ok: true, value: { a: { b: 1 } } });
    expect(errors(`a:\n${' '.repeat(20_000)}b: 1\n`)).toEqual(message);
    // Deep but sane documents still decode.
    expect(decodeConfigText(`a: ${'['.repeat(50)}1${']'.repeat(50)}\n`).ok).toBe(true);
  });
});
