import fc from 'fast-check';
import { FieldPath } from '@plat/api-model';
import type { CustomResourceDefinition } from './crd-types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, validateStructuralSchema } from './crd-validation.js';

const messages = (errs: { toString(): string }[]) => errs.map(String);

function crd(spec: Record<string, unknown> = {}, name = 'widgets.example.com'): CustomResourceDefinition {
  return {
    metadata: { name },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      ...spec,
    },
  };
}

// Cases after Kubernetes' TestValidateCustomResourceDefinition
// (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation_test.go).
describe('validateCustomResourceDefinition', () => {
  it('accepts a minimal CRD', () => {
    expect(validateCustomResourceDefinition(crd())).toEqual([]);
  });

  it('wants the name <plural>.<group> and a group with a dot', () => {
    expect(messages(validateCustomResourceDefinition(crd({}, 'other.example.com')))).toEqual(['metadata.name: Invalid value: "other.example.com": must be spec.names.plural+"."+spec.group']);
    expect(messages(validateCustomResourceDefinition(crd({ group: 'example' }, 'widgets.example')))).toEqual(['spec.group: Invalid value: "example": should be a domain with at least one dot']);
  });

  it('checks the names as DNS labels, kinds in mixed case, and kind different from listKind', () => {
    const errs = messages(validateCustomResourceDefinition(crd({ names: { plural: 'widgets', singular: 'Wid_get', kind: 'Widget', listKind: 'Widget', shortNames: ['w.d'], categories: ['ok'] } })));
    expect(errs).toEqual([
      expect.stringMatching(/^spec\.names\.singular: Invalid value: "Wid_get": a DNS-1035 label must consist of lower case/),
      expect.stringMatching(/^spec\.names\.shortNames\[0\]: Invalid value: "w\.d": a DNS-1035 label/),
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ]);
    expect(messages(validateCustomResourceDefinition(crd({ names: { plural: 'widgets' } })))).toEqual([
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
    ]);
  });

  it('wants unique versions, exactly one storage version, one served, and a schema for each', () => {
    const v = (name: string, storage: boolean, served = true) => ({ name, served, storage, schema: { openAPIV3Schema: { type: 'object' } } });
    expect(messages(validateCustomResourceDefinition(crd({ versions: [v('v1', true), v('v1', true)] })))).toEqual([
      'spec.versions: Invalid value: must contain unique version names',
      'spec.versions: Invalid value: must have exactly one version marked as storage version',
    ]);
    expect(messages(validateCustomResourceDefinition(crd({ versions: [v('v1', true, false)] })))).toEqual(['spec.versions: Invalid value: must have at least one version marked as served']);
    expect(messages(validateCustomResourceDefinition(crd({ versions: [{ name: 'v1', served: true, storage: true }] })))).toEqual([
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    ]);
    expect(messages(validateCustomResourceDefinition(crd({ versions: [] })))).toEqual(['spec.versions: Invalid value: must have exactly one version marked as storage version']);
  });

  it('refuses scopes, conversion strategies and keywords plat does not support, in Kubernetes’ words', () => {
    expect(messages(validateCustomResourceDefinition(crd({ scope: 'Global', conversion: { strategy: 'Webhook' } })))).toEqual([
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      'spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"',
    ]);
    const schema = { type: 'object', properties: { a: { type: 'string', default: 'x' }, b: { type: 'string', pattern: '^a' } } };
    expect(messages(validateCustomResourceDefinition(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] })))).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[a].default: Forbidden: default is not supported',
      'spec.versions[0].schema.openAPIV3Schema.properties[b].pattern: Forbidden: pattern is not supported',
    ]);
  });

  it('keeps group and plural, and scope and kind once Established', () => {
    const old = crd();
    old.metadata!.resourceVersion = '5';
    old.status = { conditions: [{ type: 'Established', status: 'True' }] };
    const next = crd({ scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Gadget', listKind: 'GadgetList' } });
    next.metadata!.resourceVersion = '5';
    expect(messages(validateCustomResourceDefinitionUpdate(next, old))).toEqual([
      'spec.scope: Invalid value: "Namespaced": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
    ]);
  });
});

// Kubernetes' structural schema rules (pkg/apiserver/schema/validation.go).
describe('validateStructuralSchema', () => {
  const root = FieldPath.root('schema');
  it('wants an object at the root and a type for every field and item', () => {
    expect(messages(validateStructuralSchema({ properties: { a: {} } }, root))).toEqual([
      'schema.type: Required value: must not be empty at the root',
      'schema.properties[a].type: Required value: must not be empty for specified object fields',
    ]);
    expect(messages(validateStructuralSchema({ type: 'object', properties: { l: { type: 'array', items: {} } } }, root))).toEqual([
      'schema.properties[l].items.type: Required value: must not be empty for specified array items',
    ]);
  });

  it('allows no type under x-kubernetes-int-or-string and x-kubernetes-preserve-unknown-fields', () => {
    expect(validateStructuralSchema({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true }, q: { 'x-kubernetes-preserve-unknown-fields': true } } }, root)).toEqual([]);
    expect(messages(validateStructuralSchema({ type: 'object', properties: { p: { type: 'string', 'x-kubernetes-int-or-string': true } } }, root))).toEqual([
      'schema.properties[p].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true',
    ]);
  });

  it('refuses properties beside additionalProperties, and stops at its depth bound', () => {
    expect(messages(validateStructuralSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }, root))).toEqual([
      'schema.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ]);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200; i++) deep = { type: 'object', properties: { x: deep } };
    expect(messages(validateStructuralSchema(deep, root)).some((m) => m.includes('must not nest more than 64 levels'))).toBe(true);
  });

  it('answers field errors, never throws, for any JSON as a schema (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (schema) => {
        const spec = { versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] };
        expect(Array.isArray(validateCustomResourceDefinition(crd(spec as Record<string, unknown>)))).toBe(true);
      }),
    );
  });
});
