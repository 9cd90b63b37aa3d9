import { kubernetesPatchSchemaTable } from './generated/kubernetes-patch-schema.js';
import { TableSchemas, objectStrategicSchema, type StrategicSchema } from './strategic-schema.js';

/** The built-in Kubernetes kinds, from the generated table. */
export const builtinSchemas = new TableSchemas(kubernetesPatchSchemaTable);

const registered = new Map<string, StrategicSchema>();

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * The strategic merge patch schema of a kind: a registered one first, then the built-in
 * Kubernetes kinds. Undefined for custom resources and unknown kinds, for which Kubernetes
 * refuses strategic merge patch.
 */
export function lookupStrategicSchema(apiVersion: string, kind: string): StrategicSchema | undefined {
  return registered.get(kindKey(apiVersion, kind)) ?? platRbacSchema(apiVersion, kind) ?? builtinSchemas.forKind(apiVersion, kind);
}

/** Registers (or replaces) the schema of a kind of our own. */
export function registerStrategicSchema(apiVersion: string, kind: string, schema: StrategicSchema): void {
  registered.set(kindKey(apiVersion, kind), schema);
}

/** The built-in schema of an OpenAPI definition (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`). */
export function builtinStrategicSchema(definition: string): StrategicSchema | undefined {
  return builtinSchemas.forDefinition(definition);
}

function requiredDefinition(name: string): StrategicSchema {
  const schema = builtinSchemas.forDefinition(name);
  // An invariant: the table is generated from the same OpenAPI document that names these definitions.
  // (Thrown by hand rather than with node:assert, which `patch --local` would otherwise load at start-up.)
  if (!schema) throw new Error(`the generated patch schema table lacks ${name}`);
  return schema;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

/**
 * ClusterTrustBundle (certificates.plat.io, every version): no merge-keyed list of its own; its
 * metadata is Kubernetes' ObjectMeta, so ownerReferences merge by uid and finalizers by value.
 */
export const clusterTrustBundleSchema: StrategicSchema = objectStrategicSchema('ClusterTrustBundle', {
  apiVersion: {},
  kind: {},
  metadata: { schema: () => requiredDefinition(OBJECT_META) },
  spec: {
    schema: objectStrategicSchema('ClusterTrustBundleSpec', { signerName: {}, trustBundle: {} }),
  },
});

export const clusterTrustBundleListSchema: StrategicSchema = objectStrategicSchema('ClusterTrustBundleList', {
  apiVersion: {},
  kind: {},
  metadata: { schema: () => requiredDefinition(LIST_META) },
  items: { list: true, schema: clusterTrustBundleSchema },
});

// Every version plat serves has the same fields (as Kubernetes' v1alpha1, v1beta1 and v1 do).
for (const version of ['v1alpha1', 'v1beta1', 'v1']) {
  registerStrategicSchema(`certificates.plat.io/${version}`, 'ClusterTrustBundle', clusterTrustBundleSchema);
  registerStrategicSchema(`certificates.plat.io/${version}`, 'ClusterTrustBundleList', clusterTrustBundleListSchema);
}

const platRbacKinds = new Set(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].flatMap((k) => [k, `${k}List`]));

/**
 * rbac.authorization.plat.io/v1 is Kubernetes' rbac.authorization.k8s.io/v1 under the plat name
 * (the brand rule): its kinds take Kubernetes' schemas (rules and subjects are atomic lists).
 * Resolved when asked for, not registered when this module loads, so that loading it reads
 * nothing of the generated table (part of `clientctl patch --local`'s start-up).
 */
function platRbacSchema(apiVersion: string, kind: string): StrategicSchema | undefined {
  return apiVersion === 'rbac.authorization.plat.io/v1' && platRbacKinds.has(kind) ? builtinSchemas.forKind('rbac.authorization.k8s.io/v1', kind) : undefined;
}
