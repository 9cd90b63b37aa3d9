import { isStatusError, type ApiObject } from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { scopeKey, type ResourceScope } from './scope.js';

/**
 * An update that removes the last finalizer of an object being deleted finishes the delete, as
 * Kubernetes' store does; the answer is the object as last written.
 */
export async function finishDeletionIfFinalized(scope: ResourceScope, ctx: RequestContext, obj: ApiObject, dryRun: boolean): Promise<ApiObject> {
  const meta = obj.metadata ?? {};
  if (!meta.deletionTimestamp || (meta.finalizers?.length ?? 0) > 0 || dryRun || scope.def.strategy.deletionPending?.(obj)) return obj;
  try {
    await scope.storage.delete(scopeKey(scope, meta.namespace ?? '', meta.name ?? ''), {
      preconditions: { uid: meta.uid, resourceVersion: meta.resourceVersion },
      signal: ctx.signal,
      request: ctx,
    });
  } catch (err) {
    // Someone else changed or deleted it first: their write wins.
    if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) throw err;
  }
  return obj;
}
