import type { ApiObject, FieldError } from '@plat/api-model';
import type { Authorizer, RequestScope, UserInfo } from '@plat/auth';
import type { OpenApiSchema } from './openapi/types.js';
import type { ProtobufMessage } from './protobuf.js';

/** One column of Table output (meta.k8s.io/v1 TableColumnDefinition). */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What a validating admission step sees (Kubernetes' admission.Attributes, trimmed). */
export interface AdmissionRequest {
  operation: AdmissionOperation;
  object: ApiObject;
  oldObject?: ApiObject;
  user: UserInfo;
  /**
   * The request as routed (Kubernetes' RequestInfo): the group the client used (an alias or the
   * resource's own), the resource, the namespace and the name in the path ('' on create).
   */
  request: { apiGroup: string; resource: string; namespace: string; name: string };
  dryRun: boolean;
  /**
   * The server's authorizer, for admission steps that check a permission (attest on signers);
   * ask it with `scope`.
   */
  authorizer: Authorizer;
  /** The request the admission runs for (its signal, trace context and pinned authorizer). */
  scope: RequestScope;
  signal: AbortSignal;
  /** Records an annotation on the request's audit event (Kubernetes' admission Attributes.AddAnnotation). */
  addAuditAnnotation?(key: string, value: string): void;
}

/**
 * The per-resource behaviour the generic handlers call (Kubernetes' RESTCreateStrategy,
 * RESTUpdateStrategy, TableConvertor and field-selector attributes, in one place).
 */
export interface ResourceStrategy {
  /** Clears fields the client may not set on create (status, generation...). */
  prepareForCreate?(obj: ApiObject): void;
  /** Carries over fields the client may not change on update. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject): void;
  /**
   * Normalizes a valid object right before it is stored, on create (with its final name, after
   * generateName) and update (Kubernetes' Canonicalize).
   */
  canonicalize?(obj: ApiObject): void;
  /**
   * Whether the object stays, marked with a deletionTimestamp, once its deletion starts, beyond
   * what `metadata.finalizers` hold (a Namespace until its content is gone); also keeps an update
   * that removes the last metadata finalizer from deleting it.
   */
  deletionPending?(obj: ApiObject): boolean;
  /** Changes an object whose deletion starts and that stays (a Namespace becomes Terminating). */
  prepareForDeletion?(obj: ApiObject): void;
  /** Validation of the whole object for create (metadata is validated by the generic code). */
  validate(obj: ApiObject): FieldError[];
  /** Validation of an update against the stored object. */
  validateUpdate(obj: ApiObject, old: ApiObject): FieldError[];
  /** Warnings (Warning headers) for a create or update that passed validation. */
  warnings?(obj: ApiObject, old?: ApiObject): string[];
  /**
   * Validating admission; throws a StatusError (usually 403 Forbidden) to reject. Runs for create
   * and update, and for delete with the stored object as `object` and `oldObject`.
   */
  admit?(req: AdmissionRequest): Promise<void>;
  /** PUT of a missing object creates it (true for few resources; false for ClusterTrustBundle). */
  allowCreateOnUpdate: boolean;
  /**
   * PUT without metadata.resourceVersion is allowed (last write wins); when false it is 422
   * `metadata.resourceVersion: Invalid value: 0: must be specified for an update`.
   */
  allowUnconditionalUpdate: boolean;
  /**
   * The fields a field selector may use, with their values for `obj`. `metadata.name` is always
   * present; anything else is resource-specific (`spec.signerName`). `metadata.namespace` of a
   * namespaced resource is added by the generic code.
   */
  selectableFields(obj: ApiObject): Record<string, string>;
  /** The names `selectableFields` returns; a field selector on any other field is a 400. */
  selectableFieldNames: readonly string[];
  /**
   * The object as served under `group` in `version`, one of the group names and versions the
   * resource answers to (see ResourceDefinition.groups and servedVersions), from the object in the
   * storage version; the object itself otherwise. It must not change `obj`.
   */
  servedAs?(obj: ApiObject, group: string, version: string): ApiObject;
  /** Table output: columns after the name column, and each object's cells for them. */
  tableColumns: TableColumn[];
  tableCells(obj: ApiObject): unknown[];
}

/** The OpenAPI v2 description of a kind under one group name. */
export interface OpenApiKind {
  /** The definition name of the kind, e.g. `io.plat.api.certificates.v1alpha1.ClusterTrustBundle`. */
  definitionName: string;
  /**
   * OpenAPI v2 definitions of the kind and its sub-types (refs `#/definitions/<name>`), including
   * `definitionName`. `metadata` refers to the meta.k8s.io ObjectMeta definition.
   */
  definitions: Record<string, OpenApiSchema>;
}

/**
 * A subresource served at an object's path plus `/<name>` (Kubernetes' FinalizeREST: the
 * resource's store with another update strategy). Only `update` (PUT) is served: a PUT there
 * walks the update path of the resource with `strategy` over the resource's own, never creates a
 * missing object, and records managedFields under the subresource's name.
 */
export interface SubresourceDefinition {
  /** Verbs served (discovery lists them); `update` is the only one there is. */
  verbs: readonly 'update'[];
  /** What differs from the resource's strategy for an update through the subresource. */
  strategy: Partial<Pick<ResourceStrategy, 'prepareForUpdate' | 'validateUpdate' | 'warnings'>>;
}

/** What a create-only resource (a review) is handed: the decoded body and who asks. */
export interface CreateOnlyRequest {
  /** The body as decoded (JSON, YAML or protobuf), kind and apiVersion checked against the path. */
  object: Record<string, unknown>;
  /** The group name the client used (the resource's own or another it answers to). */
  group: string;
  user: UserInfo;
  /** The server's authorizer chain (an access review asks it, with `scope`). */
  authorizer: Authorizer;
  /** The request the review is made for (its signal, trace context and pinned authorizer). */
  scope: RequestScope;
  signal: AbortSignal;
}

/**
 * A resource served by the generic handlers: data (names, schema, wire codec) + strategy. The
 * one place a resource says which group names it answers to: routing, discovery, OpenAPI and the
 * storage keys read `group` and `groups`, and RBAC reads the same names from @plat/api-model's
 * alias table, which the registry fills `groups` from.
 */
export interface ResourceDefinition extends OpenApiKind {
  /** The group the objects belong to: their storage keys and the apiVersion they are stored with. */
  group: string;
  /**
   * Every group name the resource answers to, `group` first (`rbac.authorization.plat.io` and
   * `rbac.authorization.k8s.io`): the same keys, watches and objects under each, read and written
   * as that group's kind. Defaults to `[group]`.
   */
  groups?: readonly string[];
  /**
   * The OpenAPI of the kind under another of `groups` (Kubernetes' definition names) or in another
   * of its served versions; `definitionName`/`definitions` (of `group`/`version`) otherwise.
   */
  openApiAs?(group: string, version: string): OpenApiKind;
  /**
   * The storage version: objects are written as `group/version`, and it is the version served
   * when `servedVersions` names none for a group (Kubernetes' storage version, the hub objects
   * are converted through).
   */
  version: string;
  /**
   * The versions served under each group name, preferred first (Kubernetes' served versions;
   * discovery lists the first as preferredVersion). A group it does not name serves `[version]`.
   * Every version is backed by the same objects and keys.
   */
  servedVersions?: Readonly<Record<string, readonly string[]>>;
  /**
   * A request under another of `groups` is authorized as `group` (the review APIs: one group name
   * in a 403 and in a webhook's review); otherwise under the group the client wrote, as
   * kube-apiserver names it in a 403 (`clusterrolebindings.rbac.authorization.k8s.io is
   * forbidden`), where RBAC matches a rule of either name.
   */
  authorizedAsOwnGroup?: boolean;
  /**
   * The object in the storage version from an object stored in any version this resource ever
   * stored (objects stored before the storage version changed); identity when already there.
   * Reads decode with it, so every stored object is served in every version.
   */
  toStorageVersion?(obj: ApiObject): ApiObject;
  /**
   * Objects are decoded as unstructured, as Kubernetes serves custom resources: a value of the
   * wrong type is the strategy's validation error (422), not a decoding error (400); unknown
   * fields are still pruned (kept under `x-kubernetes-preserve-unknown-fields`); strategic merge
   * patch is refused (415).
   */
  unstructured?: boolean;
  /** Plural, lower case: `clustertrustbundles`. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  /**
   * Objects live in a namespace (`/namespaces/<ns>/<resource>/<name>`; listed and watched across
   * namespaces at `/<resource>`), or are cluster-scoped.
   */
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Verbs served; defaults to all of them. */
  verbs?: string[];
  /** Subresources served, by name (`finalize` of a Namespace). */
  subresources?: Readonly<Record<string, SubresourceDefinition>>;
  /** The kind's protobuf message (k8s.io/api generated.proto), for bodies kubectl's typed clients send. */
  protobuf?: ProtobufMessage;
  /**
   * A resource nothing is stored for (Kubernetes' rest.Creater without storage: the review APIs):
   * served for `create` only, answered 201 with what this returns. Throws a StatusError to refuse.
   */
  createOnly?(req: CreateOnlyRequest): Promise<Record<string, unknown>>;
  /**
   * The object in the storage version from an object stored in any version this resource ever
   * stored; identity when already there. Storage migration (`apiserver migrate-storage`) writes
   * back what this returns when it differs; without it every stored object counts as current.
   */
  toStorageVersion?(obj: ApiObject): ApiObject;
  strategy: ResourceStrategy;
}

/**
 * A resource as served under one of its group names in one of its versions (what the handlers,
 * discovery and OpenAPI work with): `group`/`version` are the ones served, `storageGroup`/
 * `storageVersion` the resource's own group and storage version.
 */
export interface ServedResource extends ResourceDefinition {
  storageGroup: string;
  storageVersion: string;
}

/** The versions a resource serves under `group`, preferred first. */
export function servedVersionsOf(def: Pick<ResourceDefinition, 'version' | 'servedVersions'>, group: string): readonly string[] {
  return def.servedVersions?.[group] ?? [def.version];
}

function servedUnder(def: ResourceDefinition, group: string, version: string): ServedResource {
  const own = group === def.group && version === def.version;
  // Short names and categories belong to the own group: under another name, kubectl would warn
  // that `ctb` could also match it, and `kubectl get <category>` would list each object twice.
  const names = group === def.group ? {} : { shortNames: [], categories: [] };
  return { ...def, ...(own ? {} : (def.openApiAs?.(group, version) ?? {})), ...names, group, version, storageGroup: def.group, storageVersion: def.version };
}

/**
 * The resources as served under each of their group names and versions, in the order discovery
 * and OpenAPI list them: stored resources, then create-only ones; of each, the own groups first,
 * then the other names, in the order given (so a bare resource name resolves to the own group),
 * each group's versions preferred first.
 */
export function servedResources(defs: readonly ResourceDefinition[]): ServedResource[] {
  const expand = (list: readonly ResourceDefinition[]): ServedResource[] => [
    ...list.flatMap((def) => servedVersionsOf(def, def.group).map((version) => servedUnder(def, def.group, version))),
    ...list.flatMap((def) =>
      (def.groups ?? [def.group])
        .filter((g) => g !== def.group)
        .flatMap((group) => servedVersionsOf(def, group).map((version) => servedUnder(def, group, version))),
    ),
  ];
  return [...expand(defs.filter((d) => !d.createOnly)), ...expand(defs.filter((d) => d.createOnly))];
}

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function gvString(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
