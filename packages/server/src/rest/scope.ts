import { goQuote, newBadRequest, newNotFound, validatePathSegmentName, type ApiObject, type GroupKind, type GroupResource } from '@plat/api-model';
import type { Authorizer } from '@plat/auth';
import { lookupStrategicSchema } from '@plat/patch';
import { collectionPrefix, objectKey, type Storage } from '@plat/storage';
import type { ServerLogger } from '../logger.js';
import type { ServerMetrics } from '../metrics.js';
import type { ProtobufMessage } from '../protobuf.js';
import { gvString, type ServedResource } from '../resource.js';
import type { SchemaSet } from '../schema-walk.js';
import type { EncodedObjects, EncodingView } from './encoded-objects.js';
import type { NamespaceLifecycle } from './namespace-lifecycle.js';
import { StorageKeys } from './storage-keys.js';

/** Everything a REST handler needs about the resource it serves and the server around it. */
export interface ResourceScope {
  def: ServedResource;
  storage: Storage;
  authorizer: Authorizer;
  schemas: SchemaSet;
  /** The protobuf messages of every kind served, by kind (a body names its kind in its envelope). */
  protobufKinds: ReadonlyMap<string, ProtobufMessage>;
  metrics: ServerMetrics;
  /** Where a watch event refused as not newer than the last one sent is logged. */
  logger?: ServerLogger;
  gr: GroupResource;
  gk: GroupKind;
  apiVersion: string;
  /** The group whose keys hold the objects (the resource's own, or the one it is another name for). */
  storageGroup: string;
  /** The apiVersion objects are stored with (of `storageGroup`, in the storage version). */
  storageApiVersion: string;
  /**
   * The apiVersion whose patch and apply schema the served version uses: its own when one is
   * registered, else the storage version's (a served version with the storage version's fields,
   * as Kubernetes' certificates.k8s.io/v1 ClusterTrustBundle is plat's).
   */
  schemaApiVersion: string;
  /** NamespaceLifecycle admission of creates, for a namespaced resource of a server that serves Namespaces. */
  namespaceLifecycle?: NamespaceLifecycle;
  maxBodyBytes: number;
  minRequestTimeoutSeconds: number;
  watchBookmarkIntervalMs?: number;
  /** Registers a watch so shutdown can end it; returns the unregister function. */
  trackWatch(stop: () => void): () => void;
  /** Compact JSON of stored objects as served, kept by resourceVersion; shared by every scope of a server. */
  encodings: EncodedObjects;
  /** How this scope serves an object, for `encodings`. */
  encodingView: EncodingView;
  /** The scopes of the subresources the resource serves, by name: the resource's with their strategy. */
  subresources?: ReadonlyMap<string, ResourceScope>;
  /** Storage keys of names checked before (shared with the subresources' scopes: the same keys). */
  storageKeys?: StorageKeys;
}

/**
 * The storage key of the object `name` (in `namespace` for a namespaced resource; the namespace
 * of a request for a cluster-scoped one is ignored, as `/api/v1/namespaces/a` carries `a`),
 * checked as Kubernetes' NoNamespaceKeyFunc and NamespaceKeyFunc do: a name that cannot be a path
 * segment (a client can send `%25` for `%`) is 400 `Name parameter invalid: "%": may not contain
 * '%'`. A name or namespace holding NUL is 404: no object has one (create validates names first)
 * and a backend key cannot hold it.
 */
export function scopeKey(scope: ResourceScope, namespace: string, name: string): string {
  const ns = scope.def.namespaced ? namespace : '';
  // Only keys of names that passed the checks below are remembered (a namespaced one with its namespace).
  const known = scope.storageKeys?.get(ns, name);
  if (known !== undefined) return known;
  if (scope.def.namespaced && namespace === '') throw newBadRequest('Namespace parameter required.');
  if (name === '') throw newBadRequest('Name parameter required.');
  const problems = validatePathSegmentName(name, false);
  if (problems.length) throw newBadRequest(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`);
  if (name.includes('\u0000') || ns.includes('\u0000')) throw newNotFound(scope.gr, name);
  const key = objectKey(scope.storageGroup, scope.def.resource, ns, name);
  scope.storageKeys?.set(ns, name, key);
  return key;
}

/**
 * The prefix a list, watch or deletecollection reads: the namespace's objects of a namespaced
 * resource, or all of them (every namespace, or a cluster-scoped resource). A namespace that no
 * key can hold (NUL) is 404.
 */
export function scopePrefix(scope: ResourceScope, namespace: string): string {
  const ns = scope.def.namespaced ? namespace : '';
  if (ns.includes('\u0000')) throw newNotFound({ group: '', resource: 'namespaces' }, ns);
  return collectionPrefix(scope.storageGroup, scope.def.resource, ns);
}

/** The fields a field selector sees of an object: the strategy's, and `metadata.namespace` of a namespaced one. */
export function selectableFields(scope: ResourceScope, obj: ApiObject): Record<string, string> {
  const fields = scope.def.strategy.selectableFields(obj);
  return scope.def.namespaced ? { ...fields, 'metadata.namespace': obj.metadata?.namespace ?? '' } : fields;
}

/** The field names a field selector may use (see {@link selectableFields}). */
export function selectableFieldNames(scope: ResourceScope): readonly string[] {
  const names = scope.def.strategy.selectableFieldNames;
  return scope.def.namespaced && !names.includes('metadata.namespace') ? [...names, 'metadata.namespace'] : names;
}

/**
 * Kubernetes' EnsureObjectNamespaceMatchesRequestNamespace (with ExpectedNamespaceForScope): the
 * namespace of a namespaced object defaults to the request's, and must equal it when set (400);
 * a cluster-scoped object's namespace is cleared.
 */
export function ensureObjectNamespace(scope: ResourceScope, requestNamespace: string, obj: ApiObject): void {
  const meta = obj.metadata ?? (obj.metadata = {});
  const expected = scope.def.namespaced ? requestNamespace : '';
  const actual = meta.namespace ?? '';
  if (actual === expected) return;
  if (actual === '' || expected === '') {
    if (expected === '') delete meta.namespace;
    else meta.namespace = expected;
    return;
  }
  throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function newResourceScope(
  def: ServedResource,
  rest: Omit<ResourceScope, 'def' | 'gr' | 'gk' | 'apiVersion' | 'storageGroup' | 'storageApiVersion' | 'schemaApiVersion' | 'encodingView' | 'subresources' | 'storageKeys'>,
): ResourceScope {
  const apiVersion = gvString(def);
  const storageApiVersion = gvString({ group: def.storageGroup, version: def.storageVersion });
  const scope: ResourceScope = {
    ...rest,
    def,
    gr: { group: def.group, resource: def.resource },
    gk: { group: def.group, kind: def.kind },
    apiVersion,
    storageGroup: def.storageGroup,
    storageApiVersion,
    schemaApiVersion: lookupStrategicSchema(apiVersion, def.kind) ? apiVersion : storageApiVersion,
    encodingView: { kind: def.kind, apiVersion, servedItem: (stored) => servedItem(scope, stored) },
    storageKeys: new StorageKeys(),
  };
  if (def.subresources) {
    // Kubernetes' subresource stores copy the resource's store and swap its update strategy
    // (pkg/registry/core/namespace/storage/storage.go, NewREST); a subresource never creates a
    // missing object (FinalizeREST.Update passes forceAllowCreate false).
    scope.subresources = new Map(
      Object.entries(def.subresources).map(([name, sub]) => [
        name,
        { ...scope, def: { ...def, strategy: { ...def.strategy, ...sub.strategy, allowCreateOnUpdate: false } } },
      ]),
    );
  }
  return scope;
}

/** The object as served: with its kind and apiVersion first, as Kubernetes encodes it. */
export function withTypeMeta(scope: ResourceScope, obj: ApiObject): ApiObject {
  return { kind: scope.def.kind, apiVersion: scope.apiVersion, ...servedItem(scope, obj) };
}

/**
 * A stored object in the storage version (Kubernetes' storage codec decodes to the hub): an
 * object stored in an earlier storage version goes through the resource's toStorageVersion; one
 * already there is returned as is (one string comparison on the read path).
 */
export function decodeStored(scope: ResourceScope, obj: ApiObject): ApiObject {
  const convert = scope.def.toStorageVersion;
  return convert === undefined || obj.apiVersion === scope.storageApiVersion ? obj : convert(obj);
}

/** A stored object as an item of a served list: in the served form, without kind and apiVersion. */
export function servedItem(scope: ResourceScope, stored: ApiObject): ApiObject {
  const obj = decodeStored(scope, stored);
  const served = scope.def.strategy.servedAs ? scope.def.strategy.servedAs(obj, scope.def.group, scope.def.version) : obj;
  const { apiVersion: _a, kind: _k, ...rest } = served;
  return rest;
}

/** The served compact JSON of a stored object (as writeObject encodes it); kept by resourceVersion. */
export function encodedObject(scope: ResourceScope, obj: ApiObject): Buffer {
  return scope.encodings.object(scope.encodingView, obj);
}
