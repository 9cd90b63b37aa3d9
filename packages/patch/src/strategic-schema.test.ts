import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinStrategicSchema, lookupStrategicSchema, registerStrategicSchema } from './strategic-registry.js';
import { objectStrategicSchema, type StrategicSchema } from './strategic-schema.js';

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

  it('lets a registered schema take precedence', () => {
    const schema = objectStrategicSchema('Widget', { spec: {} });
    registerStrategicSchema('widgets.plat.io/v1', 'Widget', schema);
    expect(lookupStrategicSchema('widgets.plat.io/v1', 'Widget')).toBe(schema);
  });
});

// The committed table is the generator's output for the reference OpenAPI document.
const repoRoot = resolve(import.meta.dirname, '../../..');
const openapi = resolve(repoRoot, '../shared/reference/kubernetes-openapi-v2.json');
const itWithOpenApi = existsSync(openapi) ? it : it.skip;
if (!existsSync(openapi)) console.warn(`generated-table freshness test skipped: ${openapi} not found`);

itWithOpenApi('the committed generated table matches tools/patch-schema/generate.mjs output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plat-patch-schema-'));
  try {
    const out = join(dir, 'table.ts');
    execFileSync(process.execPath, [resolve(repoRoot, 'tools/patch-schema/generate.mjs'), openapi, out], { stdio: 'pipe' });
    const committed = readFileSync(resolve(repoRoot, 'packages/patch/src/generated/kubernetes-patch-schema.ts'), 'utf8');
    expect(readFileSync(out, 'utf8') === committed).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
