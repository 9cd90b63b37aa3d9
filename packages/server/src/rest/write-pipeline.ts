import {
  exceedsNestingDepth,
  goQuote,
  isStatusError,
  maxNestingDepth,
  newBadRequest,
  newInvalid,
  type ApiObject,
  type ObjectMeta,
} from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { applyTypeForKind, recordUpdate } from '@plat/patch';
import type { AdmissionOperation } from '../resource.js';
import { pruneToSchema } from '../schema-walk.js';
import type { FieldValidation } from './options.js';
import type { ResourceScope } from './scope.js';

/**
 * Reports unknown and duplicate fields as `fieldValidation` asks: Strict answers 400 with all of
 * them, Warn adds one Warning header each, Ignore drops them silently.
 */
/** `duplicates` are already worded (`duplicate field "x"`, or the YAML decoder's message). */
export function applyFieldValidation(ctx: RequestContext, mode: FieldValidation, unknown: string[], duplicates: string[]): void {
  if (mode === 'Ignore') return;
  const messages = [...unknown.map((p) => `unknown field ${goQuote(p)}`), ...duplicates];
  if (messages.length === 0) return;
  if (mode === 'Strict') throw newBadRequest(`strict decoding error: ${messages.join(', ')}`);
  ctx.warnings.push(...messages);
}

/**
 * Turns a decoded body into an object of the scope's kind the way typed decoding does: the
 * apiVersion and kind must match when present (and are filled in when absent), unknown fields are
 * dropped, and values of the wrong type are a 400.
 */
export function toTypedObject(
  scope: ResourceScope,
  ctx: RequestContext,
  value: Record<string, unknown>,
  mode: FieldValidation,
  duplicates: string[],
): ApiObject {
  const apiVersion = value['apiVersion'];
  const kind = value['kind'];
  if (typeof apiVersion === 'string' && apiVersion !== '' && apiVersion !== scope.apiVersion) {
    throw newBadRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${scope.apiVersion})`);
  }
  if (typeof kind === 'string' && kind !== '' && kind !== scope.def.kind) {
    throw newBadRequest(`the kind in the data (${kind}) does not match the expected kind (${scope.def.kind})`);
  }
  // A patch can nest a value in another: bound the result as the decoders bound a body, before
  // any walk over it (and before it is stored, where every later read would have to walk it).
  if (exceedsNestingDepth(value)) throw newBadRequest(`the object nests arrays and objects more than ${maxNestingDepth} levels deep: exceeded max depth`);
  const schema = scope.schemas.get(scope.def.definitionName)!;
  const problems = pruneToSchema(value, schema, scope.schemas);
  if (problems.typeErrors.length && !scope.def.unstructured) throw newBadRequest(`json: ${problems.typeErrors[0]}`);
  applyFieldValidation(ctx, mode, problems.unknown, duplicates);
  const obj = value as ApiObject;
  obj.apiVersion = scope.apiVersion;
  obj.kind = scope.def.kind;
  return obj;
}

export function metaOf(obj: ApiObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj.metadata;
}

/** `record`: the request is an Update and its changes are recorded; `keep`: an apply computed them. */
export type ManagedFieldsMode = 'record' | 'keep';

/**
 * Records an Update operation (create, PUT, JSON/merge/strategic patch) of `manager` in
 * managedFields with the structured-merge engine: `old` is the stored object as read
 * (undefined on create); `obj.metadata.managedFields` as the client left it ([] resets tracking).
 * An update through a subresource is recorded under its name and keeps the stored entries.
 */
export function recordManagedFields(scope: ResourceScope, obj: ApiObject, old: ApiObject | undefined, manager: string, subresource = ''): void {
  const { object } = recordUpdate({
    before: old as Record<string, unknown> | undefined,
    after: obj as Record<string, unknown>,
    manager,
    apiVersion: scope.apiVersion,
    ...(subresource ? { subresource } : {}),
    now: new Date(),
    schema: applyTypeForKind(scope.schemaApiVersion, scope.def.kind),
  });
  const meta = metaOf(obj);
  const entries = (object.metadata as ObjectMeta | undefined)?.managedFields;
  if (entries && entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
}

export function validateForCreate(scope: ResourceScope, obj: ApiObject): void {
  const errs = scope.def.strategy.validate(obj);
  if (errs.length) throw newInvalid(scope.gk, obj.metadata?.name ?? '', errs);
}

export function validateForUpdate(scope: ResourceScope, obj: ApiObject, old: ApiObject): void {
  const errs = scope.def.strategy.validateUpdate(obj, old);
  if (errs.length) throw newInvalid(scope.gk, obj.metadata?.name ?? '', errs);
}

export async function runAdmission(
  scope: ResourceScope,
  ctx: RequestContext,
  operation: AdmissionOperation,
  obj: ApiObject,
  old: ApiObject | undefined,
  dryRun: boolean,
): Promise<void> {
  const admit = scope.def.strategy.admit;
  if (!admit) return;
  await admit.call(scope.def.strategy, {
    operation,
    object: obj,
    oldObject: old,
    user: ctx.user!,
    request: { apiGroup: scope.def.group, resource: scope.def.resource, namespace: ctx.info.namespace, name: ctx.info.name },
    dryRun,
    authorizer: scope.authorizer,
    scope: ctx,
    signal: ctx.signal,
    addAuditAnnotation: (key, value) => ctx.audit?.addAnnotation(key, value),
  });
}

/**
 * Kubernetes' BeforeUpdate: fields the client cannot change are carried over from the stored
 * object (uid when empty, creationTimestamp, deletion fields, generation).
 */
export function carryOverSystemFields(obj: ApiObject, old: ApiObject): void {
  const meta = metaOf(obj);
  const oldMeta = old.metadata ?? {};
  if (!meta.uid) meta.uid = oldMeta.uid;
  if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined && oldMeta.deletionGracePeriodSeconds !== null) {
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  } else delete meta.deletionGracePeriodSeconds;
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  delete meta.selfLink;
}

/**
 * Runs the decoding of a create or update body; its 400s are worded as kube-apiserver's
 * transformDecodeError: `<Kind> in version "<v>" cannot be handled as a <Kind>: <error>`.
 */
export function decodeForWrite<T>(scope: ResourceScope, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (isStatusError(err, 'BadRequest') && !/^(the API version in the data|the object provided is unrecognized)/.test(err.message)) {
      const { kind, version } = scope.def;
      throw newBadRequest(`${kind} in version ${goQuote(version)} cannot be handled as a ${kind}: ${err.message}`);
    }
    throw err;
  }
}
