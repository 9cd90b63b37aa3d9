import { newConflict, successStatus, type ApiObject } from '@plat/api-model';
import type { Storage } from '@plat/storage';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { writeObject } from '../response.js';
import { parseDeleteOptions, type ParsedDeleteOptions } from './delete-options.js';
import { scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import { conflictMessage } from './update.js';
import { attributesFor, forbiddenError } from '../filters/authorization.js';

/**
 * Kubernetes asks for a second permission before an unsafe delete (one that ignores store read
 * errors): verb `unsafe-delete-ignore-read-errors` on the same resource.
 */
async function authorizeUnsafeDelete(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const attrs = { ...attributesFor(ctx.user!, ctx.info), verb: 'unsafe-delete-ignore-read-errors' };
  const result = await scope.authorizer.authorize(attrs, { signal: ctx.signal });
  if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
}

export interface DeleteOutcome {
  /** The object as deleted, or as it now waits for its finalizers. */
  object: ApiObject;
  /** False when finalizers hold it: the object got a deletionTimestamp instead. */
  deleted: boolean;
}

function checkPreconditions(scope: ResourceScope, name: string, current: ApiObject, pre: ParsedDeleteOptions['preconditions']): void {
  if (!pre) return;
  const meta = current.metadata ?? {};
  if (pre.uid && pre.uid !== meta.uid) {
    throw newConflict(scope.gr, name, new Error(`Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`));
  }
  if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw newConflict(
      scope.gr,
      name,
      new Error(`Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`),
    );
  }
}

/**
 * Deletes one object as Kubernetes' store does: an object with finalizers gets a
 * deletionTimestamp (and stays until they are removed); any other is removed at once.
 */
export async function deleteObject(
  scope: ResourceScope,
  storage: Storage,
  namespace: string,
  name: string,
  opts: ParsedDeleteOptions,
  signal: AbortSignal,
): Promise<DeleteOutcome> {
  const key = scopeKey(scope, namespace, name);
  const current = await storage.get(key, { signal });
  checkPreconditions(scope, name, current, opts.preconditions);
  if ((current.metadata?.finalizers?.length ?? 0) > 0) {
    const updated = await storage.guaranteedUpdate(
      key,
      (cur) => {
        checkPreconditions(scope, name, cur, opts.preconditions);
        if (cur.metadata?.deletionTimestamp) return cur;
        const next = structuredClone(cur);
        next.metadata = { ...next.metadata, deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), deletionGracePeriodSeconds: 0 };
        return next;
      },
      { dryRun: opts.dryRun, signal },
    );
    return { object: updated, deleted: false };
  }
  const deleted = await storage.delete(key, {
    dryRun: opts.dryRun,
    preconditions: { uid: current.metadata?.uid, resourceVersion: opts.preconditions?.resourceVersion },
    signal,
    validateDeletion: (cur) => {
      checkPreconditions(scope, name, cur, opts.preconditions);
      if ((cur.metadata?.finalizers?.length ?? 0) > 0) throw newConflict(scope.gr, name, new Error(conflictMessage));
    },
  });
  return { object: deleted, deleted: true };
}

/** DELETE .../<resource>/<name>: 200 Status, or 202 with the object while finalizers hold it. */
export async function deleteResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const opts = await parseDeleteOptions(scope, ctx);
  const name = ctx.info.name;
  if (opts.ignoreStoreReadError) await authorizeUnsafeDelete(scope, ctx);
  const outcome = await deleteObject(scope, scope.storage, ctx.info.namespace, name, opts, ctx.signal);
  if (!outcome.deleted) {
    writeObject(ctx, 202, withTypeMeta(scope, outcome.object), choice);
    return;
  }
  writeObject(
    ctx,
    200,
    successStatus({ name, group: scope.def.group, kind: scope.def.resource, uid: outcome.object.metadata?.uid }),
    choice,
  );
}
