import { newConflict, successStatus, type ApiObject } from '@plat/api-model';
import type { Storage } from '@plat/storage';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { writeObject } from '../response.js';
import { parseDeleteOptions, type ParsedDeleteOptions } from './delete-options.js';
import { scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import { conflictMessage } from './update.js';
import { runAdmission } from './write-pipeline.js';
import { attributesFor, forbiddenError } from '../filters/authorization.js';

/**
 * Kubernetes asks for a second permission before an unsafe delete (one that ignores store read
 * errors): verb `unsafe-delete-ignore-read-errors` on the same resource.
 */
async function authorizeUnsafeDelete(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const attrs = { ...attributesFor(ctx.user!, ctx.info, () => scope.storageGroup), verb: 'unsafe-delete-ignore-read-errors' };
  const result = await scope.authorizer.authorize(attrs, ctx);
  if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
}

/** The strategy's admission for a delete, if it has one: the stored object as object and old object. */
export function admitDelete(scope: ResourceScope, ctx: RequestContext, dryRun: boolean): ((current: ApiObject) => Promise<void>) | undefined {
  if (!scope.def.strategy.admit) return undefined;
  return (current) => runAdmission(scope, ctx, 'DELETE', current, current, dryRun);
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
  /** The request's signal and the request (storage's OperationOptions). */
  call: { signal: AbortSignal; request: RequestContext },
  /** Admission of the delete, given the stored object (it may throw to refuse). */
  admit?: (current: ApiObject) => Promise<void>,
): Promise<DeleteOutcome> {
  const key = scopeKey(scope, namespace, name);
  const { signal, request } = call;
  const current = await storage.get(key, { signal, request });
  checkPreconditions(scope, name, current, opts.preconditions);
  await admit?.(current);
  const strategy = scope.def.strategy;
  const stays = (obj: ApiObject) => (obj.metadata?.finalizers?.length ?? 0) > 0 || strategy.deletionPending?.(obj) === true;
  if (stays(current)) {
    const updated = await storage.guaranteedUpdate(
      key,
      (cur) => {
        checkPreconditions(scope, name, cur, opts.preconditions);
        if (cur.metadata?.deletionTimestamp) return cur;
        const next = structuredClone(cur);
        next.metadata = { ...next.metadata, deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), deletionGracePeriodSeconds: 0 };
        strategy.prepareForDeletion?.(next);
        return next;
      },
      { dryRun: opts.dryRun, signal, request },
    );
    return { object: updated, deleted: false };
  }
  const deleted = await storage.delete(key, {
    dryRun: opts.dryRun,
    preconditions: { uid: current.metadata?.uid, resourceVersion: opts.preconditions?.resourceVersion },
    signal,
    request,
    validateDeletion: (cur) => {
      checkPreconditions(scope, name, cur, opts.preconditions);
      if (stays(cur)) throw newConflict(scope.gr, name, new Error(conflictMessage));
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
  const outcome = await deleteObject(scope, scope.storage, ctx.info.namespace, name, opts, { signal: ctx.signal, request: ctx }, admitDelete(scope, ctx, opts.dryRun));
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
