import { readPatch } from './patch-document.js';

describe('readPatch (kubectl\'s yaml.ToJSON)', () => {
  it('sends a text starting with `{` as it is and decodes it', () => {
    expect(readPatch(' {"spec":{"replicas":3}}\n', '')).toEqual({ body: ' {"spec":{"replicas":3}}\n', value: { spec: { replicas: 3 } } });
  });

  it('keeps YAML flow syntax after `{` as text the patch functions refuse, with Go\'s syntax error', () => {
    expect(readPatch('{spec: {replicas: 3}}', '')).toEqual({
      body: '{spec: {replicas: 3}}',
      value: undefined,
      syntaxError: "invalid character 's' looking for beginning of object key string",
    });
  });

  it('converts YAML (a JSON patch list too) to JSON', () => {
    expect(readPatch('spec:\n  replicas: 3\n', '')).toEqual({ body: '{"spec":{"replicas":3}}', value: { spec: { replicas: 3 } } });
    expect(readPatch('- {op: remove, path: /a}', '').value).toEqual([{ op: 'remove', path: '/a' }]);
  });

  it('makes an empty, blank or comment-only text null', () => {
    for (const text of ['', ' ', '\n\n  \r\n', '# nothing\n', '~', 'null', '---\n']) expect(readPatch(text, text)).toEqual({ body: 'null', value: null });
  });

  it('refuses tabs and control characters as go-yaml does, quoting the -p value', () => {
    expect(() => readPatch('\t', '\t')).toThrow('unable to parse "\\t": yaml: found character that cannot start any token');
    expect(() => readPatch('  \n \r\n\t', '')).toThrow('unable to parse "": yaml: line 3: found character that cannot start any token');
    expect(() => readPatch('# a\t\n \t# b', '# a\t\n \t# b')).toThrow('unable to parse "# a\\t\\n \\t# b": yaml: line 2: found character that cannot start any token');
    expect(() => readPatch('a: \v', 'a: \v')).toThrow('unable to parse "a: \\v": yaml: control characters are not allowed');
    expect(() => readPatch('a: [', 'a: [')).toThrow(/^unable to parse "a: \[": yaml: line 1: /);
  });
});
