import { readFileSync } from 'node:fs';
import { FieldSet, decodePathElement, encodePathElement, pathString, type FieldPath } from './fieldpath.js';

interface Fixture {
  managedFields: { fieldsV1: Record<string, unknown> }[];
  serverSideApplied: { entry: { fieldsV1: Record<string, unknown> } };
}

const fixture = JSON.parse(
  readFileSync(new URL('../../test/apply/deployment-nginx.json', import.meta.url), 'utf8'),
) as Fixture;

const f = (field: string) => ({ field });

describe('FieldsV1 encoding', () => {
  it.each([
    ['kubectl-create Update entry', fixture.managedFields[0].fieldsV1],
    ['kube-controller-manager status entry', fixture.managedFields[1].fieldsV1],
    ['kubectl server-side Apply entry', fixture.serverSideApplied.entry.fieldsV1],
  ])('round-trips the %s of a real Deployment byte for byte', (_name, tree) => {
    const set = FieldSet.fromFieldsV1(tree);
    expect(JSON.stringify(set.toFieldsV1())).toBe(JSON.stringify(tree));
  });

  it('reads members, children and "." markers as Kubernetes writes them', () => {
    const set = FieldSet.fromFieldsV1(fixture.managedFields[0].fieldsV1);
    const paths = set.paths().map(pathString);
    expect(paths).toContain('.metadata.labels');
    expect(paths).toContain('.metadata.labels.app');
    expect(paths).toContain('.spec.selector');
    expect(paths).toContain('.spec.template.spec.containers[name="nginx"]');
    expect(paths).toContain('.spec.template.spec.containers[name="nginx"].image');
    expect(paths).not.toContain('.spec');
    expect(paths).not.toContain('.spec.template.spec.containers');
    expect(set.size()).toBe(paths.length);
    expect(paths.length).toBe(24);
  });

  it('sorts fields before keyed items before set values before indexes, "." first', () => {
    const set = FieldSet.of(
      [f('list'), { index: 2 }],
      [f('list'), { value: 'b' }],
      [f('list'), { value: 10 }],
      [f('list'), { key: [['name', 'z']] }],
      [f('list'), { key: [['name', 'a']] }],
      [f('list'), f('x')],
      [f('list')],
      [f('a')],
    );
    expect(Object.keys(set.toFieldsV1())).toEqual(['f:a', 'f:list']);
    expect(Object.keys(set.toFieldsV1()['f:list'] as object)).toEqual([
      '.',
      'f:x',
      'k:{"name":"a"}',
      'k:{"name":"z"}',
      'v:10',
      'v:"b"',
      'i:2',
    ]);
  });

  it('orders numeric keys by value, not by spelling', () => {
    const set = FieldSet.of(
      [f('ports'), { key: [['port', 8080]] }],
      [f('ports'), { key: [['port', 80]] }],
      [f('ports'), { key: [['port', 443]] }],
    );
    expect(Object.keys(set.toFieldsV1()['f:ports'] as object)).toEqual([
      'k:{"port":80}',
      'k:{"port":443}',
      'k:{"port":8080}',
    ]);
  });

  it('spells keys with their fields sorted whatever order they were read in', () => {
    const pe = decodePathElement('k:{"protocol":"TCP","containerPort":80}');
    expect(encodePathElement(pe)).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    const set = FieldSet.fromFieldsV1({ 'f:ports': { 'k:{"protocol":"TCP","containerPort":80}': {} } });
    expect(set.has([f('ports'), { key: [['containerPort', 80], ['protocol', 'TCP']] }])).toBe(true);
  });

  it('decodes set values and indexes', () => {
    expect(decodePathElement('v:"finalizer.plat.io"')).toEqual({ value: 'finalizer.plat.io' });
    expect(decodePathElement('v:3')).toEqual({ value: 3 });
    expect(decodePathElement('v:true')).toEqual({ value: true });
    expect(decodePathElement('i:12')).toEqual({ index: 12 });
    expect(decodePathElement('f:a.b/c')).toEqual({ field: 'a.b/c' });
  });

  it.each([
    ['x:foo', /unknown path element type/],
    ['foo', /unknown path element type/],
    ['k:{"name":', /invalid key/],
    ['k:{}', /invalid key/],
    ['k:[1]', /invalid key/],
    ['v:{oops', /invalid value/],
    ['i:-1', /invalid index/],
    ['i:01', /invalid index/],
  ])('rejects the malformed element %s', (text, message) => {
    expect(() => decodePathElement(text)).toThrow(message);
  });

  it('rejects trees that are not objects of objects', () => {
    expect(() => FieldSet.fromFieldsV1([])).toThrow(/expected an object/);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow(/expected an object/);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': { '.': { 'f:b': {} } } })).toThrow(/empty object/);
  });

  it('treats {".": {}} alone as a member and writes it back as {}', () => {
    const set = FieldSet.fromFieldsV1({ 'f:labels': { '.': {} } });
    expect(set.has([f('labels')])).toBe(true);
    expect(set.toFieldsV1()).toEqual({ 'f:labels': {} });
  });
});

describe('paths as Kubernetes prints them', () => {
  it.each<[FieldPath, string]>([
    [[f('spec'), f('trustBundle')], '.spec.trustBundle'],
    [[f('spec'), f('containers'), { key: [['name', 'nginx']] }, f('image')], '.spec.containers[name="nginx"].image'],
    [
      [f('ports'), { key: [['containerPort', 80], ['protocol', 'TCP']] }],
      '.ports[containerPort=80,protocol="TCP"]',
    ],
    [[f('metadata'), f('finalizers'), { value: 'a"b' }], '.metadata.finalizers[="a\\"b"]'],
    [[f('args'), { index: 0 }], '.args[0]'],
  ])('%j is %s', (path, text) => {
    expect(pathString(path)).toBe(text);
  });
});

describe('set operations', () => {
  const a = FieldSet.of([f('spec'), f('a')], [f('spec'), f('b')], [f('spec'), f('m'), f('x')]);
  const b = FieldSet.of([f('spec'), f('b')], [f('spec'), f('m')], [f('spec'), f('c')]);

  it('union, intersection and difference work path by path', () => {
    expect(a.union(b).paths().map(pathString)).toEqual(['.spec.a', '.spec.b', '.spec.c', '.spec.m', '.spec.m.x']);
    expect(a.intersection(b).paths().map(pathString)).toEqual(['.spec.b']);
    expect(a.difference(b).paths().map(pathString)).toEqual(['.spec.a', '.spec.m.x']);
  });

  it('recursive difference also drops what lies below a member of the other set', () => {
    expect(a.recursiveDifference(b).paths().map(pathString)).toEqual(['.spec.a']);
  });

  it('leaves its operands unchanged and compares by content', () => {
    const before = a.toFieldsV1();
    a.union(b);
    a.difference(b);
    expect(a.toFieldsV1()).toEqual(before);
    expect(a.equals(FieldSet.fromFieldsV1(before))).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(a.difference(a).isEmpty()).toBe(true);
  });
});

describe('fieldManagerFor', () => {
  it('prefers the fieldManager parameter, else takes the User-Agent product', async () => {
    const { fieldManagerFor } = await import('./managed-fields.js');
    expect(fieldManagerFor('clientctl-patch', 'kubectl/v1.32.0')).toBe('clientctl-patch');
    expect(fieldManagerFor(undefined, 'kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef')).toBe('kubectl');
    expect(fieldManagerFor('', 'clientctl')).toBe('clientctl');
    expect(fieldManagerFor(undefined, 'bad\u0001agent/1')).toBe('badagent');
    expect(fieldManagerFor(undefined, 'x'.repeat(200))).toHaveLength(128);
    expect(fieldManagerFor(undefined, undefined)).toBe('');
  });
});
