import { fieldError, isStatusError, newBadRequest, newConflict, newInvalid, type ApiObject } from '@plat/api-model';
import { createObject } from './create.js';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { contentTypeOf, decodeObjectBody, readBody } from '../request-body.js';
import { writeObject } from '../response.js';
import { finishDeletionIfFinalized } from './finalize.js';
import { parseDryRun, parseFieldManager, parseFieldValidation } from './options.js';
import { decodeStored, ensureObjectNamespace, scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import {
  carryOverSystemFields,
  metaOf,
  recordManagedFields,
  runAdmission,
  toTypedObject,
  decodeForWrite,
  validateForUpdate,
  type ManagedFieldsMode,
} from './write-pipeline.js';

export const conflictMessage = 'the object has been modified; please apply your changes to the latest version and try again';

/**
 * The update steps shared by PUT and PATCH, run inside guaranteedUpdate against the current
 * object: optimistic concurrency, system fields, managedFields, validation, admission.
 */
export async function prepareUpdate(
  scope: ResourceScope,
  ctx: RequestContext,
  next: ApiObject,
  current: ApiObject,
  opts: { manager: string; dryRun: boolean; name: string; managedFields?: ManagedFieldsMode },
): Promise<ApiObject> {
  current = decodeStored(scope, current);
  const meta = metaOf(next);
  const currentRv = current.metadata?.resourceVersion;
  const currentUid = current.metadata?.uid ?? '';
  if (meta.uid && meta.uid !== currentUid) {
    // Kubernetes turns the body's uid into a precondition of the update.
    throw newConflict(scope.gr, opts.name, new Error(`Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${currentUid}`));
  }
  // Kubernetes' Store.Update: a resourceVersion of "" or "0" is none. A patch or an apply starts
  // from the stored object and keeps its resourceVersion, so only a PUT (or a patch that removes
  // it) reaches the unconditional case.
  if (meta.resourceVersion && meta.resourceVersion !== '0') {
    if (meta.resourceVersion !== currentRv) throw newConflict(scope.gr, opts.name, new Error(conflictMessage));
  } else if (!scope.def.strategy.allowUnconditionalUpdate) {
    // Worded with the resource as the kind, as the Store does ("TODO: should have a field for Resource").
    throw newInvalid({ group: scope.def.group, kind: scope.def.resource }, opts.name, [
      fieldError.invalid('metadata.resourceVersion', 0, 'must be specified for an update'),
    ]);
  } else {
    meta.resourceVersion = currentRv;
  }
  ensureObjectNamespace(scope, ctx.info.namespace, next);
  carryOverSystemFields(next, current);
  scope.def.strategy.prepareForUpdate?.(next, current);
  if (opts.managedFields !== 'keep') recordManagedFields(scope, next, current, opts.manager, ctx.info.subresource);
  validateForUpdate(scope, next, current);
  ctx.warnings.push(...(scope.def.strategy.warnings?.(next, current) ?? []));
  await runAdmission(scope, ctx, 'UPDATE', next, current, opts.dryRun);
  scope.def.strategy.canonicalize?.(next);
  next.apiVersion = scope.storageApiVersion;
  return next;
}

/** PUT .../<resource>/<name>: 200 with the updated object; 404 when missing (no create on update). */
export async function updateResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const dryRun = parseDryRun(ctx, 'UpdateOptions');
  const mode = parseFieldValidation(ctx, 'UpdateOptions');
  const manager = parseFieldManager(ctx, 'UpdateOptions');
  const name = ctx.info.name;
  const body = await readBody(ctx, scope.maxBodyBytes);
  const obj = decodeForWrite(scope, () => {
    // No Content-Type reads as JSON, the first type served (kube's NegotiateInputSerializerForMediaType;
    // `kubectl create|replace --raw` sends none).
    const decoded = decodeObjectBody(body, contentTypeOf(ctx) || 'application/json', mode !== 'Ignore', scope.def.kind, scope.protobufKinds);
    return toTypedObject(scope, ctx, decoded.value as Record<string, unknown>, mode, decoded.duplicates);
  });
  ctx.audit?.logRequestObject(obj);
  const objName = obj.metadata?.name ?? '';
  if (objName !== name) {
    throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  }
  let updated: ApiObject;
  try {
    updated = await scope.storage.guaranteedUpdate(
      scopeKey(scope, ctx.info.namespace, name),
      (current) => prepareUpdate(scope, ctx, structuredClone(obj), current, { manager, dryRun, name }),
      { dryRun, signal: ctx.signal, request: ctx },
    );
  } catch (err) {
    // PUT creates a missing object only for resources whose strategy allows it (not ClusterTrustBundle).
    if (!isStatusError(err, 'NotFound') || !scope.def.strategy.allowCreateOnUpdate) throw err;
    const created = await createObject(scope, ctx, obj, { dryRun, manager });
    writeObject(ctx, 201, withTypeMeta(scope, created), choice);
    return;
  }
  const result = await finishDeletionIfFinalized(scope, ctx, updated, dryRun);
  writeObject(ctx, 200, withTypeMeta(scope, result), choice);
}
