import { pruneToSchema, SchemaSet } from './schema-walk.js';

describe('pruneToSchema', () => {
  it('drops unknown fields, except under x-kubernetes-preserve-unknown-fields (a custom resource’s schema)', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { a: { type: 'string' } } },
        free: { type: 'object', properties: { known: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    const value = { spec: { a: 'x', b: 1 }, free: { known: 'k', other: { deep: true } } };
    const problems = pruneToSchema(value, schema, new SchemaSet({}));
    expect(problems.unknown).toEqual(['spec.b']);
    expect(value).toEqual({ spec: { a: 'x' }, free: { known: 'k', other: { deep: true } } });
  });
});
