import { newMethodNotSupported } from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { resourceKeyOf } from '../request-info.js';
import { newPathNotFound } from '../response.js';
import { createOnlyResource } from './create-only.js';
import { createResource } from './create.js';
import { deleteCollection } from './delete-collection.js';
import { deleteResource } from './delete.js';
import { getResource } from './get.js';
import { listResource } from './list.js';
import { patchResource } from './patch.js';
import type { ResourceScope } from './scope.js';
import { updateResource } from './update.js';
import { watchResource } from './watch.js';

/**
 * The REST handler of a verb. A switch over the verbs, which are the request info's literals, so
 * each case is one comparison of the same string object: as a keyed load from an object of
 * handlers (`handlers[info.verb]`), the load had seen every verb and went megamorphic, 0.39 µs
 * of a GET in perf (`perf-native.mjs --callers KeyedLoadIC_Megamorphic`, load 1.1).
 */
function handlerOf(verb: string): ((scope: ResourceScope, ctx: RequestContext) => Promise<void>) | undefined {
  switch (verb) {
    case 'get':
      return getResource;
    case 'list':
      return listResource;
    case 'watch':
      return watchResource;
    case 'create':
      return createResource;
    case 'update':
      return updateResource;
    case 'patch':
      return patchResource;
    case 'delete':
      return deleteResource;
    case 'deletecollection':
      return deleteCollection;
    default:
      return undefined;
  }
}

/**
 * Routes a resource request to its REST handler: 404 for unknown resources, 405 for unsupported
 * verbs (thrown synchronously).
 */
export function dispatchResource(scopes: ReadonlyMap<string, ResourceScope>, ctx: RequestContext): Promise<void> {
  const { info } = ctx;
  const scope = scopes.get(resourceKeyOf(info));
  if (!scope) throw newPathNotFound();
  if (scope.def.namespaced) {
    // Across namespaces (`/<resource>` of a namespaced resource) Kubernetes serves list and watch
    // only; a name there is no path of the API.
    if (!info.namespace) {
      if (info.name) throw newPathNotFound();
      if (info.verb !== 'list' && info.verb !== 'watch') throw newMethodNotSupported(scope.gr, info.verb);
    }
  } else if (info.namespace && !(info.apiGroup === '' && info.resource === 'namespaces' && info.name === info.namespace)) {
    // A cluster-scoped resource has no namespaced path (a Namespace's own path, `namespaces/<ns>`,
    // carries its name as the namespace).
    throw newPathNotFound();
  }
  if (info.subresource) return dispatchSubresource(scope, ctx);
  // POST to a named object is not an operation of the API.
  if (info.verb === 'create' && info.name) throw newMethodNotSupported(scope.gr, 'create');
  if ((info.verb === 'update' || info.verb === 'patch') && !info.name) throw newMethodNotSupported(scope.gr, info.verb);
  const handler = scope.def.createOnly ? (info.verb === 'create' ? createOnlyResource : undefined) : handlerOf(info.verb);
  const allowed = scope.def.verbs;
  if (!handler || (allowed && !allowed.includes(info.verb))) throw newMethodNotSupported(scope.gr, info.verb);
  // The handler's promise as it is (no async frame of ours in between); the errors above are
  // thrown synchronously, which the caller's `await` turns into rejections alike.
  return handler(scope, ctx);
}

/**
 * A request to `<object>/<subresource>`: 404 for a subresource the resource does not serve, 405
 * for a verb it does not serve; an update goes through the update handler with the
 * subresource's scope (its strategy).
 */
function dispatchSubresource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const { info } = ctx;
  const sub = scope.subresources?.get(info.subresource);
  const served = scope.def.subresources?.[info.subresource];
  if (!sub || !served || ctx.info.parts.length > 3) throw newPathNotFound();
  if (info.verb !== 'update' || !served.verbs.includes(info.verb)) throw newMethodNotSupported(scope.gr, info.verb);
  return updateResource(sub, ctx);
}
