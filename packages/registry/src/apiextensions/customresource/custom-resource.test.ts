import fc from 'fast-check';
import { compareKubeAwareVersions, customResourceDefinitionName, customResourceDefinitions } from './custom-resource.js';
import { validateAgainstSchema } from './schema-validation.js';

describe('customResourceDefinitions', () => {
  const crd = {
    metadata: { name: 'widgets.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } },
        { name: 'v2alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };

  it('serves the served versions, preferred first, stored in the storage version, under Kubernetes’ definition names', () => {
    const [def] = customResourceDefinitions(crd);
    expect(def).toMatchObject({ group: 'stable.example.com', version: 'v1', servedVersions: { 'stable.example.com': ['v1', 'v1beta1'] }, resource: 'widgets', namespaced: false, unstructured: true });
    expect(def!.definitionName).toBe('com.example.stable.v1.Widget');
    expect(def!.openApiAs!('stable.example.com', 'v1beta1').definitionName).toBe('com.example.stable.v1beta1.Widget');
    expect(def!.definitions['com.example.stable.v1.Widget']!.properties!['metadata']).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    expect(customResourceDefinitionName('example.com', 'v1', 'X')).toBe('com.example.v1.X');
  });

  it('serves nothing of a CRD without a served storage version or names', () => {
    expect(customResourceDefinitions({ ...crd, spec: { ...crd.spec, versions: [] } })).toEqual([]);
  });

  it('orders versions as apimachinery’s CompareKubeAwareVersionStrings', () => {
    expect(['v1alpha1', 'foo', 'v2', 'v1beta2', 'v1', 'v1beta1', 'bar', 'v10'].sort(compareKubeAwareVersions)).toEqual(['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
  });
});

describe('validateAgainstSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          count: { type: 'integer', maximum: 3, exclusiveMaximum: true },
          ratio: { type: 'number' },
          tags: { type: 'array', items: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          maybe: { type: 'string', nullable: true },
        },
      },
    },
  };

  it('reports types, required fields and bounds with the field paths kube-apiserver gives', () => {
    const errs = validateAgainstSchema({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { count: 3, ratio: 1, tags: ['a', 2], labels: { a: true }, maybe: null } }, schema).map(String);
    expect(errs).toEqual([
      'spec.name: Required value',
      'spec.count: Invalid value: 3: spec.count in body should be less than 3',
      'spec.tags[1]: Invalid value: 2: spec.tags[1] in body must be of type string: "integer"',
      'spec.labels.a: Invalid value: true: spec.labels.a in body must be of type string: "boolean"',
    ]);
  });

  it('reads only the schema’s own properties (a field named constructor is no schema)', () => {
    expect(validateAgainstSchema({ spec: { name: 'n', constructor: 1, __proto__: 2 } }, schema)).toEqual([]);
  });

  it('never throws, whatever the value (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (spec) => {
        expect(Array.isArray(validateAgainstSchema({ spec }, schema))).toBe(true);
      }),
    );
  });
});
