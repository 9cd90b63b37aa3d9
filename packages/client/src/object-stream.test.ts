import { readObjectStream } from './object-stream.js';

const read = (text: string, source = 'f') => {
  const errors: string[] = [];
  const objects = readObjectStream(text, source, (e) => errors.push(e instanceof AggregateError ? `[${e.message}]` : e.message));
  return { names: objects.map((o) => (o.metadata as { name?: string } | undefined)?.name ?? '?'), errors };
};
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;

describe('readObjectStream (kubectl\'s StreamVisitor)', () => {
  it('reads YAML documents, skipping empty ones, going on after one that cannot be decoded', () => {
    expect(read(`---\n${cm('a')}---\n# only a comment\n---\nfoo: 1\n--- # next\n${cm('b')}`)).toEqual({
      names: ['a', 'b'],
      errors: [`unable to decode "f": Object 'Kind' is missing in '{"foo":1}'`],
    });
  });

  it('stops at a syntax error, keeping the objects before it', () => {
    // A bad separator is found while the document before it is still being read: that one is lost too.
    expect(read(`${cm('a')}---\n${cm('b')}---x\n${cm('c')}`)).toEqual({ names: ['a'], errors: ['error parsing f: invalid Yaml document separator: x'] });
    expect(read(`${cm('a')}---\na: [`, 's.yaml').errors[0]).toMatch(/^error parsing s\.yaml: error converting YAML to JSON: yaml: line 1: /);
  });

  it('reads a stream of JSON values with the raw text in errors', () => {
    const a = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}';
    expect(read(`${a}\n{"b": 1} [1] ${a.replace('"a"', '"c"')} {"x":`)).toEqual({
      names: ['a', 'c'],
      errors: [
        `unable to decode "f": Object 'Kind' is missing in '{"b": 1}'`,
        'unable to decode "f": json: cannot unmarshal array into Go value of type unstructured.detector',
        'error parsing f: unexpected EOF',
      ],
    });
  });

  it('takes a text whose first bytes are `[` as YAML, and drops a byte order mark', () => {
    expect(read('[1]').errors).toEqual(['unable to decode "f": json: cannot unmarshal array into Go value of type unstructured.detector']);
    expect(read(`\ufeff${cm('bom')}`).names).toEqual(['bom']);
  });
});
