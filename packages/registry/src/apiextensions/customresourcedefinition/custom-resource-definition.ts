import {
  apiGroupNames,
  apiextensionsGroup,
  apiextensionsKubernetesGroup,
  customResourceCleanupFinalizer,
  customResourceDefinitionKind,
  customResourceDefinitionsResource,
  type ApiObject,
} from '@plat/api-model';
import type { OpenApiKind, ResourceDefinition, ResourceStrategy, SubresourceDefinition, TableColumn } from '@plat/server';
import { apiextensionsV1Definitions, apiextensionsV1KubernetesDefinitions } from '../../kind-definitions.generated.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from './crd-types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatusUpdate, validateCustomResourceDefinitionUpdate } from './crd-validation.js';

const asCrd = (obj: ApiObject) => obj as CustomResourceDefinition;

/** Sets (or replaces) a condition, keeping its lastTransitionTime while its status stays (Kubernetes' SetCRDCondition). */
export function setCondition(crd: CustomResourceDefinition, condition: CustomResourceDefinitionCondition, now = new Date()): void {
  const status = (crd.status ??= {});
  const conditions = status.conditions ?? [];
  const old = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime = old && old.status === condition.status && old.lastTransitionTime ? old.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = { ...condition, lastTransitionTime };
  status.conditions = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

/** Adds the storage version to status.storedVersions (Kubernetes' strategy does on create and update). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = (crd.spec?.versions ?? []).find((v) => v.storage)?.name;
  if (!storage) return;
  const status = (crd.status ??= {});
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/**
 * Kubernetes' v1 defaults (apiextensions/v1 defaults.go, SetDefaults_CustomResourceDefinitionSpec):
 * the singular is the kind in lower case, the listKind the kind with `List`, conversion `None`.
 */
function setDefaults(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object' && typeof names.kind === 'string' && names.kind) {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
}

/** The metadata fields only the main resource changes (Kubernetes' statusStrategy keeps them from the stored object). */
const ownMetadata = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * Kubernetes' CustomResourceDefinition strategy
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go):
 * status is the controllers' (cleared on create, kept on update, written through `status`),
 * generation counts spec changes, the storage version is recorded in status.storedVersions. A
 * deleted CRD stays, Terminating with the cleanup finalizer, until its custom resources are gone
 * (etcd.go, REST.Delete).
 */
export const customResourceDefinitionStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    const crd = asCrd(obj);
    setDefaults(crd);
    crd.status = {};
    recordStorageVersion(crd);
    (crd.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const crd = asCrd(obj);
    const prev = asCrd(old);
    setDefaults(crd);
    crd.status = structuredClone(prev.status ?? {});
    recordStorageVersion(crd);
    const meta = (crd.metadata ??= {});
    const generation = prev.metadata?.generation ?? 1;
    meta.generation = JSON.stringify(crd.spec) === JSON.stringify(prev.spec) ? generation : generation + 1;
  },
  deletionPending: (obj) => !obj.metadata?.deletionTimestamp,
  prepareForDeletion(obj) {
    const crd = asCrd(obj);
    const meta = (crd.metadata ??= {});
    if (!(meta.finalizers ?? []).includes(customResourceCleanupFinalizer)) meta.finalizers = [...(meta.finalizers ?? []), customResourceCleanupFinalizer];
    setCondition(crd, {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  },
  validate: (obj) => validateCustomResourceDefinition(asCrd(obj)),
  validateUpdate: (obj, old) => validateCustomResourceDefinitionUpdate(asCrd(obj), asCrd(old)),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  selectableFields: (obj) => ({ 'metadata.name': obj.metadata?.name ?? '' }),
  selectableFieldNames: ['metadata.name'],
  // Kubernetes serves CRDs with the default table: the name and when it was created.
  tableColumns: [
    {
      name: 'Created At',
      type: 'date',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    } satisfies TableColumn,
  ],
  tableCells: (obj) => [obj.metadata?.creationTimestamp ?? ''],
};

/**
 * `customresourcedefinitions/status` (Kubernetes' statusStrategy): the status from the body; spec
 * and the labels, annotations, finalizers and owners from the stored object.
 */
export const customResourceDefinitionStatus: SubresourceDefinition = {
  verbs: ['update'],
  strategy: {
    prepareForUpdate(obj, old) {
      const crd = asCrd(obj);
      const prev = asCrd(old);
      if (prev.spec === undefined) delete crd.spec;
      else crd.spec = structuredClone(prev.spec);
      const meta = (crd.metadata ??= {});
      const prevMeta = prev.metadata ?? {};
      for (const field of ownMetadata) {
        if (prevMeta[field] === undefined) delete meta[field];
        else (meta as Record<string, unknown>)[field] = structuredClone(prevMeta[field]);
      }
    },
    validateUpdate: (obj, old) => validateCustomResourceDefinitionStatusUpdate(asCrd(obj), asCrd(old)),
  },
};

/** The OpenAPI of the kind under each of its group names (Kubernetes' definition names under apiextensions.k8s.io). */
export function customResourceDefinitionOpenApi(group: string): OpenApiKind {
  const k8s = group === apiextensionsKubernetesGroup;
  const prefix = `${k8s ? 'io.k8s' : 'io.plat'}.apiextensions-apiserver.pkg.apis.apiextensions.v1.`;
  return { definitionName: `${prefix}${customResourceDefinitionKind}`, definitions: k8s ? apiextensionsV1KubernetesDefinitions : apiextensionsV1Definitions };
}

/**
 * CustomResourceDefinition (cluster-scoped) as a served resource: `apiextensions.plat.io/v1` and
 * Kubernetes' `apiextensions.k8s.io/v1`, the same objects. The custom resources a CRD defines are
 * served once it is Established (the CRD controller of @plat/controllers, with
 * customResourceDefinitions of this package).
 */
export function customResourceDefinitionResource(): ResourceDefinition {
  return {
    group: apiextensionsGroup,
    groups: apiGroupNames(apiextensionsGroup),
    version: 'v1',
    openApiAs: (group) => customResourceDefinitionOpenApi(group),
    ...customResourceDefinitionOpenApi(apiextensionsGroup),
    resource: customResourceDefinitionsResource,
    singular: 'customresourcedefinition',
    kind: customResourceDefinitionKind,
    listKind: `${customResourceDefinitionKind}List`,
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    strategy: customResourceDefinitionStrategy,
    subresources: { status: customResourceDefinitionStatus },
  };
}
