import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinSchemas, builtinStrategicSchema, lookupStrategicSchema, registerStrategicSchema } from './strategic-registry.js';
import fc from 'fast-check';
import { kubernetesPatchSchemaTable } from './generated/kubernetes-patch-schema.js';
import { PatchSchemaTableReader, TableSchemas, objectStrategicSchema, packedIndexOf, type StrategicSchema } from './strategic-schema.js';

function walk(schema: StrategicSchema | undefined, ...path: string[]) {
  let s = schema;
  let meta;
  for (const key of path) {
    meta = s?.lookupField(key);
    s = meta?.schema;
  }
  return meta;
}

describe('generated Kubernetes schema table', () => {
  const deployment = lookupStrategicSchema('apps/v1', 'Deployment');

  it('finds built-in kinds by apiVersion and kind', () => {
    expect(deployment?.name).toBe('Deployment');
    expect(lookupStrategicSchema('v1', 'Pod')?.name).toBe('Pod');
    expect(lookupStrategicSchema('v1', 'Service')?.name).toBe('Service');
    expect(lookupStrategicSchema('rbac.authorization.k8s.io/v1', 'ClusterRole')?.name).toBe('ClusterRole');
    expect(lookupStrategicSchema('apps/v1', 'Nope')).toBeUndefined();
    expect(lookupStrategicSchema('stable.example.com/v1', 'CronTab')).toBeUndefined();
  });

  it('carries merge keys, strategies and list types', () => {
    expect(walk(deployment, 'spec', 'template', 'spec', 'containers')).toMatchObject({
      shape: 'list',
      patchMergeKey: 'name',
      patchStrategies: ['merge'],
      listType: 'map',
      listMapKeys: ['name'],
    });
    expect(walk(deployment, 'spec', 'template', 'spec', 'containers', 'ports')).toMatchObject({ patchMergeKey: 'containerPort', patchStrategies: ['merge'] });
    expect(walk(deployment, 'spec', 'template', 'spec', 'containers', 'env')).toMatchObject({ patchMergeKey: 'name' });
    expect(walk(deployment, 'spec', 'template', 'spec', 'volumes')).toMatchObject({ patchMergeKey: 'name', patchStrategies: ['merge', 'retainKeys'] });
    expect(walk(deployment, 'spec', 'template', 'spec', 'tolerations')).toMatchObject({ patchStrategies: [], listType: 'atomic' });
    expect(walk(deployment, 'spec', 'strategy')).toMatchObject({ shape: 'field', patchStrategies: ['retainKeys'] });
    expect(walk(deployment, 'metadata', 'finalizers')).toMatchObject({ patchStrategies: ['merge'], listType: 'set' });
    expect(walk(deployment, 'metadata', 'ownerReferences')).toMatchObject({ patchMergeKey: 'uid' });
    expect(walk(deployment, 'metadata', 'labels')).toMatchObject({ shape: 'map' });
    expect(walk(deployment, 'spec', 'template', 'spec', 'containers', 'resources', 'limits')?.schema?.name).toBe('Quantity');
  });

  it('answers unknown fields with undefined and opaque types with no fields', () => {
    expect(deployment?.lookupField('bogus')).toBeUndefined();
    expect(builtinStrategicSchema('io.k8s.apimachinery.pkg.runtime.RawExtension')?.lookupField('x')).toBeUndefined();
  });

  it('registers ClusterTrustBundle with Kubernetes ObjectMeta', () => {
    const ctb = lookupStrategicSchema('certificates.plat.io/v1alpha1', 'ClusterTrustBundle');
    expect(ctb?.name).toBe('ClusterTrustBundle');
    expect(walk(ctb, 'metadata', 'ownerReferences')).toMatchObject({ patchMergeKey: 'uid', patchStrategies: ['merge'] });
    expect(walk(ctb, 'spec', 'trustBundle')).toMatchObject({ shape: 'field', patchStrategies: [] });
  });

  it('registers the rbac.authorization.plat.io kinds with Kubernetes\' RBAC schemas: rules and subjects are atomic lists', () => {
    const role = lookupStrategicSchema('rbac.authorization.plat.io/v1', 'ClusterRole');
    expect(role).toBe(lookupStrategicSchema('rbac.authorization.k8s.io/v1', 'ClusterRole'));
    expect(walk(role, 'rules')).toMatchObject({ shape: 'list', listType: 'atomic', patchStrategies: [] });
    const binding = lookupStrategicSchema('rbac.authorization.plat.io/v1', 'RoleBinding');
    expect(walk(binding, 'subjects')).toMatchObject({ shape: 'list', listType: 'atomic' });
    expect(lookupStrategicSchema('rbac.authorization.plat.io/v1', 'ClusterRoleBindingList')?.name).toBe('ClusterRoleBindingList');
    for (const kind of ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].flatMap((k) => [k, `${k}List`])) {
      const schema = lookupStrategicSchema('rbac.authorization.plat.io/v1', kind);
      expect(schema?.name).toBe(kind);
      expect(schema).toBe(lookupStrategicSchema('rbac.authorization.k8s.io/v1', kind));
    }
    expect(lookupStrategicSchema('rbac.authorization.plat.io/v1', 'Deployment')).toBeUndefined();
    expect(lookupStrategicSchema('rbac.authorization.plat.io/v2', 'Role')).toBeUndefined();
  });

  it('lets a registered schema take precedence', () => {
    const schema = objectStrategicSchema('Widget', { spec: {} });
    registerStrategicSchema('widgets.plat.io/v1', 'Widget', schema);
    expect(lookupStrategicSchema('widgets.plat.io/v1', 'Widget')).toBe(schema);
  });
});

// The committed table is the generator's output for the Go types of k8s.io/api and
// k8s.io/apimachinery v0.32 (no package registry ships them: point PLAT_K8S_API_DIR and
// PLAT_K8S_APIMACHINERY_DIR at checkouts to run this; the kubectl differential tests check the
// table's behaviour either way).
const repoRoot = resolve(import.meta.dirname, '../../..');
const apiDir = process.env.PLAT_K8S_API_DIR ?? '';
const machineryDir = process.env.PLAT_K8S_APIMACHINERY_DIR ?? '';
const haveSources = existsSync(join(apiDir, 'apps/v1/types.go')) && existsSync(join(machineryDir, 'pkg/apis/meta/v1/types.go'));
if (!haveSources) console.warn('generated-table freshness test skipped: set PLAT_K8S_API_DIR and PLAT_K8S_APIMACHINERY_DIR to k8s.io/api and k8s.io/apimachinery v0.32 checkouts');

(haveSources ? it : it.skip)('the committed generated table matches tools/patch-schema/generate.mjs output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plat-patch-schema-'));
  try {
    const out = join(dir, 'table.ts');
    execFileSync(process.execPath, [resolve(repoRoot, 'tools/patch-schema/generate.mjs'), apiDir, machineryDir, out], { stdio: 'pipe' });
    const committed = readFileSync(resolve(repoRoot, 'packages/patch/src/generated/kubernetes-patch-schema.ts'), 'utf8');
    expect(readFileSync(out, 'utf8') === committed).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('packedIndexOf', () => {
  it('finds a key of a packed JSON object of numbers only where a key starts', () => {
    const json = JSON.stringify({ 'apps/v1/Deployment': 3, 'v1/Deployment': 12, 'a"b': 7, 'x\\': 8, 'y/Deployment': -1 });
    expect(packedIndexOf(json, 'v1/Deployment')).toBe(12);
    expect(packedIndexOf(json, 'apps/v1/Deployment')).toBe(3);
    expect(packedIndexOf(json, 'a"b')).toBe(7);
    expect(packedIndexOf(json, 'b')).toBeUndefined();
    expect(packedIndexOf(json, 'x\\')).toBe(8);
    expect(packedIndexOf(json, 'y/Deployment')).toBe(-1);
    expect(packedIndexOf(json, 'Deployment')).toBeUndefined();
    expect(packedIndexOf('{}', 'a')).toBeUndefined();
  });

  it('answers as JSON.parse does, for any keys (property-based)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer({ min: -1, max: 100_000 })), fc.string(), (obj, probe) => {
        const json = JSON.stringify(obj);
        for (const key of [...Object.keys(obj), probe]) expect(packedIndexOf(json, key)).toBe(Object.hasOwn(obj, key) ? obj[key] : undefined);
      }),
    );
  });

  it('the generated table answers every kind alike before and after its kinds are parsed', () => {
    const kinds = JSON.parse(kubernetesPatchSchemaTable.packedKinds) as Record<string, number>;
    const reader = new PatchSchemaTableReader(kubernetesPatchSchemaTable);
    // The first lookups search the packed text, later ones read the parsed object.
    for (const key of ['apps/v1/Nope', 'constructor', '__proto__', ...Object.keys(kinds)]) expect(reader.kind(key)).toBe(Object.hasOwn(kinds, key) ? kinds[key] : undefined);
  });
});

describe('TableSchemas.forKind', () => {
  const table = new TableSchemas({
    types: [['io.k8s.apimachinery.pkg.apis.meta.v1.Status', { details: 0 }], ['io.k8s.api.apps.v1beta1.Deployment', { spec: 0 }]],
    kinds: { 'apps/v1beta1/Deployment': 1, 'v1/Status': 0 },
    unversioned: { Status: 0 },
  });

  it('finds a kind by apiVersion, and an unversioned kind under any apiVersion (runtime.Scheme.New)', () => {
    expect(table.forKind('apps/v1beta1', 'Deployment')?.name).toBe('Deployment');
    expect(table.forKind('apps/v1', 'Deployment')).toBeUndefined();
    expect(table.forKind('example.com/v9', 'Status')?.name).toBe('Status');
  });

  it('does not take inherited object properties for kinds', () => {
    expect(table.forKind('x', 'constructor')).toBeUndefined();
    expect(table.forKind('x', '__proto__')).toBeUndefined();
  });

  it('reads a packed table (one JSON line per type, as tools/patch-schema writes it) as the same table unpacked', () => {
    const types = [
      ['io.k8s.apimachinery.pkg.apis.meta.v1.Status', { details: 0 }],
      ['io.k8s.api.apps.v1beta1.Deployment', { spec: [0], items: [1, 1, 'name', 'merge', 'map', ['name']] }, 'atomic'],
    ] as const;
    const packed = new TableSchemas({
      packedTypes: types.map((t) => JSON.stringify(t)).join('\n'),
      packedKinds: JSON.stringify({ 'apps/v1beta1/Deployment': 1, 'v1/Status': 0 }),
      packedUnversioned: JSON.stringify({ Status: 0 }),
    });
    expect(packed.forKind('apps/v1beta1', 'Deployment')?.name).toBe('Deployment');
    expect(packed.forKind('example.com/v9', 'Status')?.name).toBe('Status');
    expect(packed.forKind('x', '__proto__')).toBeUndefined();
    expect(packed.forDefinition('io.k8s.api.apps.v1beta1.Deployment')?.lookupField('items')).toEqual({
      schema: packed.forDefinition('io.k8s.api.apps.v1beta1.Deployment'),
      shape: 'list',
      patchStrategies: ['merge'],
      patchMergeKey: 'name',
      listType: 'map',
      listMapKeys: ['name'],
      mapType: undefined,
    });
    expect(packed.forDefinition('io.k8s.api.apps.v1beta1.Nope')).toBeUndefined();
  });

  it('holds kubectl 1.32\'s scheme in the generated table', () => {
    expect(builtinSchemas.forKind('apps/v1beta1', 'Deployment')).toBeDefined();
    expect(builtinSchemas.forKind('extensions/v1beta1', 'Ingress')).toBeDefined();
    expect(builtinSchemas.forKind('certificates.k8s.io/v1beta1', 'ClusterTrustBundle')).toBeUndefined();
    expect(builtinSchemas.forKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toBeUndefined();
  });
});
