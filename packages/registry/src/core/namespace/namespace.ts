import {
  NamespacePhase,
  finalizerKubernetes,
  labelMetadataName,
  namespaceKind,
  namespaceListKind,
  namespacesResource,
  newForbidden,
  systemNamespaces,
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceUpdate,
  type ApiObject,
  type Namespace,
} from '@plat/api-model';
import { coreV1Definitions } from '../../kind-definitions.generated.js';
import { coreV1NamespaceMessage } from '../../kind-protobuf.generated.js';
import {
  ageCell,
  ageColumn,
  type AdmissionRequest,
  type ResourceDefinition,
  type ResourceStrategy,
  type SubresourceDefinition,
} from '@plat/server';

const asNamespace = (obj: ApiObject) => obj as Namespace;

/** NamespaceLifecycle's refusal to delete a system namespace. */
async function admitNamespaceDelete(req: AdmissionRequest): Promise<void> {
  const name = req.object.metadata?.name ?? '';
  if (req.operation === 'DELETE' && systemNamespaces.includes(name)) {
    throw newForbidden({ group: '', resource: namespacesResource }, name, new Error('this namespace may not be deleted'));
  }
}

/**
 * Kubernetes' namespace strategy: a new namespace is Active and carries the `kubernetes`
 * finalizer in its spec; spec and status do not change through updates (spec.finalizers changes
 * through the `finalize` subresource; status only through the server, which sets the phase); the
 * `plat.io/metadata.name` label always holds the name. A deleted namespace stays, Terminating,
 * while its spec has finalizers: the namespace controller deletes its content, then removes the
 * finalizer through `finalize`, and the namespace goes with its last finalizer.
 */
export const namespaceStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    const ns = asNamespace(obj);
    ns.status = { phase: NamespacePhase.Active };
    const finalizers = ns.spec?.finalizers ?? [];
    if (!finalizers.includes(finalizerKubernetes)) ns.spec = { ...ns.spec, finalizers: [...finalizers, finalizerKubernetes] };
  },
  prepareForUpdate(obj, old) {
    const ns = asNamespace(obj);
    const prev = asNamespace(old);
    if (prev.spec === undefined) delete ns.spec;
    else ns.spec = structuredClone(prev.spec);
    if (prev.status === undefined) delete ns.status;
    else ns.status = structuredClone(prev.status);
  },
  canonicalize(obj) {
    const meta = obj.metadata ?? (obj.metadata = {});
    meta.labels = { ...meta.labels, [labelMetadataName]: meta.name ?? '' };
    // NamespaceSpec.Finalizers is `omitempty`: a namespace finalized to none serves `spec: {}`.
    const spec = asNamespace(obj).spec;
    if (spec && !spec.finalizers?.length) delete spec.finalizers;
  },
  deletionPending: (obj) => (asNamespace(obj).spec?.finalizers?.length ?? 0) > 0,
  prepareForDeletion(obj) {
    const ns = asNamespace(obj);
    ns.status = { ...ns.status, phase: NamespacePhase.Terminating };
  },
  validate: (obj) => validateNamespace(asNamespace(obj)),
  validateUpdate: (obj, old) => validateNamespaceUpdate(asNamespace(obj), asNamespace(old)),
  admit: admitNamespaceDelete,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // Kubernetes' NamespaceToSelectableFields, with its legacy `name`.
  selectableFields: (obj) => ({
    'metadata.name': obj.metadata?.name ?? '',
    'status.phase': asNamespace(obj).status?.phase ?? '',
    name: obj.metadata?.name ?? '',
  }),
  selectableFieldNames: ['metadata.name', 'status.phase', 'name'],
  tableColumns: [{ name: 'Status', type: 'string', description: 'The status of the namespace' }, ageColumn],
  tableCells: (obj) => [asNamespace(obj).status?.phase ?? '', ageCell(obj)],
};

/**
 * Kubernetes' namespaceFinalizeStrategy (pkg/registry/core/namespace/strategy.go), served as
 * `PUT /api/v1/namespaces/<name>/finalize`: the namespace strategy, except that the update takes
 * spec (its finalizers) and metadata from the body and only status from the stored object
 * (PrepareForUpdate), validated by ValidateNamespaceFinalizeUpdate. An update that leaves a
 * Terminating namespace with no finalizer deletes it (ShouldDeleteNamespaceDuringUpdate).
 */
export const namespaceFinalize: SubresourceDefinition = {
  verbs: ['update'],
  strategy: {
    prepareForUpdate(obj, old) {
      const ns = asNamespace(obj);
      const prev = asNamespace(old);
      if (prev.status === undefined) delete ns.status;
      else ns.status = structuredClone(prev.status);
    },
    validateUpdate: (obj, old) => validateNamespaceFinalizeUpdate(asNamespace(obj), asNamespace(old)),
  },
};

/** Namespace (core `v1`, cluster-scoped) as a served resource. */
export function namespaceResource(): ResourceDefinition {
  return {
    group: '',
    version: 'v1',
    resource: namespacesResource,
    singular: 'namespace',
    kind: namespaceKind,
    listKind: namespaceListKind,
    namespaced: false,
    shortNames: ['ns'],
    categories: [],
    definitionName: `io.plat.api.core.v1.${namespaceKind}`,
    definitions: coreV1Definitions,
    // Kubernetes serves no deletecollection of namespaces.
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    protobuf: coreV1NamespaceMessage,
    strategy: namespaceStrategy,
    subresources: { finalize: namespaceFinalize },
  };
}
