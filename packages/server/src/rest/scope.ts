import { goQuote, newBadRequest, newNotFound, validatePathSegmentName, type ApiObject, type GroupKind, type GroupResource } from '@plat/api-model';
import type { Authorizer } from '@plat/auth';
import type { Storage } from '@plat/storage';
import type { ServerMetrics } from '../metrics.js';
import type { ResourceDefinition } from '../resource.js';
import { gvString } from '../resource.js';
import { encodeBody } from '../response.js';
import type { SchemaSet } from '../schema-walk.js';

/** Everything a REST handler needs about the resource it serves and the server around it. */
export interface ResourceScope {
  def: ResourceDefinition;
  storage: Storage;
  authorizer: Authorizer;
  schemas: SchemaSet;
  metrics: ServerMetrics;
  gr: GroupResource;
  gk: GroupKind;
  apiVersion: string;
  /** `/<group>/<resource>/` */
  prefix: string;
  maxBodyBytes: number;
  minRequestTimeoutSeconds: number;
  watchBookmarkIntervalMs?: number;
  /** Registers a watch so shutdown can end it; returns the unregister function. */
  trackWatch(stop: () => void): () => void;
  /**
   * Compact JSON of frozen stored objects as served (with kind and apiVersion), by object: a
   * storage answers the same frozen object while it is unchanged, so its bytes are encoded once.
   */
  encoded: WeakMap<object, string>;
}

/**
 * The storage key of the object `name`, checked as Kubernetes' NoNamespaceKeyFunc does: a name
 * that cannot be a path segment (a client can send `%25` for `%`) is 400 `Name parameter invalid:
 * "%": may not contain '%'`. A name holding NUL is 404: no object has one (create validates
 * names first) and a backend key cannot hold it.
 */
export function scopeKey(scope: ResourceScope, name: string): string {
  if (name === '') throw newBadRequest('Name parameter required.');
  const problems = validatePathSegmentName(name, false);
  if (problems.length) throw newBadRequest(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`);
  if (name.includes('\u0000')) throw newNotFound(scope.gr, name);
  return `${scope.prefix}${name}`;
}

export function newResourceScope(
  def: ResourceDefinition,
  rest: Omit<ResourceScope, 'def' | 'gr' | 'gk' | 'apiVersion' | 'prefix' | 'encoded'>,
): ResourceScope {
  return {
    ...rest,
    def,
    gr: { group: def.group, resource: def.resource },
    gk: { group: def.group, kind: def.kind },
    apiVersion: gvString(def),
    prefix: `/${def.group}/${def.resource}/`,
    encoded: new WeakMap(),
  };
}

/** The object as served: with its kind and apiVersion first, as Kubernetes encodes it. */
export function withTypeMeta(scope: ResourceScope, obj: ApiObject): ApiObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { kind: scope.def.kind, apiVersion: scope.apiVersion, ...rest };
}

/** The served compact JSON of a stored object (as writeObject encodes it); remembered for frozen objects. */
export function encodedObject(scope: ResourceScope, obj: ApiObject): string {
  const known = scope.encoded.get(obj);
  if (known !== undefined) return known;
  const text = encodeBody(withTypeMeta(scope, obj), 'json', false);
  if (Object.isFrozen(obj)) scope.encoded.set(obj, text);
  return text;
}
