import type { ApiObject, FieldError } from '@plat/api-model';
import type { Authorizer, UserInfo } from '@plat/auth';
import type { OpenApiSchema } from './openapi/types.js';

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
  /** The server's authorizer, for admission steps that check a permission (attest on signers). */
  authorizer: Authorizer;
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
   * The object as served under `group`, one of the group names the resource is served under
   * (see ResourceDefinition.storageGroup); the stored object otherwise. It must not change `obj`.
   */
  servedAs?(obj: ApiObject, group: string): ApiObject;
  /** Table output: columns after the name column, and each object's cells for them. */
  tableColumns: TableColumn[];
  tableCells(obj: ApiObject): unknown[];
}

/** A resource served by the generic handlers: data (names, schema) + strategy. */
export interface ResourceDefinition {
  group: string;
  version: string;
  /**
   * The group whose objects this resource serves, when the group is another name for them (as
   * `rbac.authorization.k8s.io` is for `rbac.authorization.plat.io`): the same keys, watches and
   * objects, read and written as this group's kind. Defaults to `group`.
   */
  storageGroup?: string;
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
  /** The OpenAPI v2 definition name of the kind, e.g. `io.plat.api.certificates.v1alpha1.ClusterTrustBundle`. */
  definitionName: string;
  /**
   * OpenAPI v2 definitions of the kind and its sub-types (refs `#/definitions/<name>`), including
   * `definitionName`. `metadata` refers to the meta.k8s.io ObjectMeta definition.
   */
  definitions: Record<string, OpenApiSchema>;
  /** Verbs served; defaults to all of them. */
  verbs?: string[];
  strategy: ResourceStrategy;
}

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function gvString(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
