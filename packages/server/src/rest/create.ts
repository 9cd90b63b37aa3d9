import { generateName, isStatusError, newInternalError, type ApiObject } from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { contentTypeOf, decodeObjectBody, readBody } from '../request-body.js';
import { writeObject } from '../response.js';
import { parseDryRun, parseFieldManager, parseFieldValidation } from './options.js';
import { ensureObjectNamespace, scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import {
  decodeForWrite,
  metaOf,
  recordManagedFields,
  runAdmission,
  toTypedObject,
  validateForCreate,
  type ManagedFieldsMode,
} from './write-pipeline.js';

/** How often a generateName create retries after a name collision (Kubernetes retries too). */
const generateNameAttempts = 8;

/** POST .../<resource>: 201 Created with the stored object (200 for dryRun as well as 201). */
export async function createResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const dryRun = parseDryRun(ctx, 'CreateOptions');
  const mode = parseFieldValidation(ctx, 'CreateOptions');
  const manager = parseFieldManager(ctx, 'CreateOptions');
  const body = await readBody(ctx, scope.maxBodyBytes);
  const obj = decodeForWrite(scope, () => {
    // No Content-Type reads as JSON, the first type served (kube's NegotiateInputSerializerForMediaType;
    // `kubectl create|replace --raw` sends none).
    const decoded = decodeObjectBody(body, contentTypeOf(ctx) || 'application/json', mode !== 'Ignore', scope.def.kind, scope.protobufKinds);
    return toTypedObject(scope, ctx, decoded.value as Record<string, unknown>, mode, decoded.duplicates);
  });
  ctx.audit?.logRequestObject(obj);
  const created = await createObject(scope, ctx, obj, { dryRun, manager });
  writeObject(ctx, 201, withTypeMeta(scope, created), choice);
}

/**
 * The create steps after decoding, shared with PUT of a missing object for resources that allow
 * create on update: system fields, generateName, managedFields, validation, admission, store.
 */
export async function createObject(
  scope: ResourceScope,
  ctx: RequestContext,
  obj: ApiObject,
  opts: { dryRun: boolean; manager: string; managedFields?: ManagedFieldsMode },
): Promise<ApiObject> {
  const { dryRun, manager } = opts;
  const meta = metaOf(obj);
  if (meta.resourceVersion) {
    // kube-apiserver's storage refuses this with an internal error; keep the same answer.
    throw newInternalError(new Error('resourceVersion should not be set on objects to be created'));
  }
  // Kubernetes' BeforeCreate: clear what the client cannot set, then let the store fill uid and timestamps.
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.uid;
  delete meta.creationTimestamp;
  delete meta.selfLink;
  ensureObjectNamespace(scope, ctx.info.namespace, obj);
  await scope.namespaceLifecycle?.admitCreate(scope.gr, ctx.info.namespace, meta.name ?? '', { signal: ctx.signal, request: ctx });
  // managedFields sent with a create are kept, as kube-apiserver's field manager keeps them (how
  // backups restore ownership); the create's own fields are recorded on top below. An apply has
  // computed them already.
  scope.def.strategy.prepareForCreate?.(obj);
  const base = meta.generateName && !meta.name ? meta.generateName : undefined;

  for (let attempt = 1; ; attempt++) {
    const candidate: ApiObject = structuredClone(obj);
    if (base !== undefined) metaOf(candidate).name = generateName(base);
    if (opts.managedFields !== 'keep') recordManagedFields(scope, candidate, undefined, manager);
    validateForCreate(scope, candidate);
    ctx.warnings.push(...(scope.def.strategy.warnings?.(candidate) ?? []));
    await runAdmission(scope, ctx, 'CREATE', candidate, undefined, dryRun);
    scope.def.strategy.canonicalize?.(candidate);
    // Stored with the apiVersion of its storage group, whichever name the client used.
    candidate.apiVersion = scope.storageApiVersion;
    try {
      return await scope.storage.create(scopeKey(scope, ctx.info.namespace, candidate.metadata!.name!), candidate, { dryRun, signal: ctx.signal, request: ctx });
    } catch (err) {
      if (base !== undefined && isStatusError(err, 'AlreadyExists') && attempt < generateNameAttempts) continue;
      throw err;
    }
  }
}
