import {
  goQuote,
  JsonDecodeError,
  decodeJson,
  encodeJson,
  fieldError,
  isStatusError,
  newBadRequest,
  newUnsupportedMediaType,
  type ApiObject,
  type FieldError,
} from '@plat/api-model';
import { APPLY_PATCH_CONTENT_TYPE, apply, applyPatch, applyTypeForKind, newApplyConflictError, type PatchType } from '@plat/patch';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { contentTypeOf, decodeBody, readBody, type DecodedBody } from '../request-body.js';
import { writeObject } from '../response.js';
import { createObject } from './create.js';
import { finishDeletionIfFinalized } from './finalize.js';
import {
  dryRunErrors,
  invalidOptions,
  parseFieldManager,
  parseFieldValidation,
  type FieldValidation,
} from './options.js';
import { parseQueryBool } from '../query-bool.js';
import { scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import { prepareUpdate } from './update.js';
import { toTypedObject } from './write-pipeline.js';

const patchMediaTypes: Record<string, PatchType | 'apply'> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  [APPLY_PATCH_CONTENT_TYPE]: 'apply',
};

/**
 * PATCH .../<resource>/<name> with a JSON patch, JSON merge patch, strategic merge patch or a
 * server-side apply configuration (`application/apply-patch+yaml`).
 */
export async function patchResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const mediaType = contentTypeOf(ctx);
  // Custom resources have no strategic merge schema: kube-apiserver's crdHandler lists the other three.
  const type = scope.def.unstructured && patchMediaTypes[mediaType] === 'strategic' ? undefined : patchMediaTypes[mediaType];
  if (!type) {
    const accepted = Object.keys(patchMediaTypes).filter((t) => !scope.def.unstructured || patchMediaTypes[t] !== 'strategic');
    throw newUnsupportedMediaType(mediaType, accepted);
  }

  // Kubernetes' ValidatePatchOptions.
  const errs: FieldError[] = [];
  const force = parseQueryBool(ctx.query.get('force'));
  if (type !== 'apply' && force !== undefined) {
    errs.push(fieldError.forbidden('force', 'may not be specified for non-apply patch'));
  }
  if (type === 'apply' && (ctx.query.get('fieldManager') ?? '') === '') {
    // kubectl defaults it; every other client has to name itself.
    errs.push(fieldError.required('fieldManager', 'is required for apply patch'));
  }
  errs.push(...dryRunErrors(ctx.query.getAll('dryRun')));
  if (errs.length) throw invalidOptions('PatchOptions', errs);
  const dryRun = ctx.query.getAll('dryRun').length > 0;
  const mode = parseFieldValidation(ctx, 'PatchOptions');
  const manager = parseFieldManager(ctx, 'PatchOptions');

  const body = await readBody(ctx, scope.maxBodyBytes);
  const text = body.toString('utf8');
  if (ctx.audit) ctx.audit.logRequestPatch(patchForAudit(text));
  if (type === 'apply') {
    await applyResource(scope, ctx, text, { manager, force: force ?? false, dryRun, mode, choice });
    return;
  }
  let patch: unknown;
  let duplicates: string[] = [];
  try {
    const decoded = decodeJson(text, { findDuplicates: type !== 'json' && mode !== 'Ignore', beyondInt64: 'exact' });
    patch = decoded.value;
    duplicates = decoded.duplicates.map((path) => `duplicate field ${goQuote(path)}`);
  } catch (err) {
    if (!(err instanceof JsonDecodeError)) throw err;
    throw newBadRequest(`error decoding patch: ${err.message}`);
  }
  // kube-apiserver decodes a strategic merge patch into a map: `null` is an empty patch (the
  // object comes back unchanged), anything else that is not an object fails to decode. A merge
  // patch that is `null` or a scalar is refused by the merge itself ("Invalid JSON Patch").
  if (type === 'strategic' && patch !== null && (typeof patch !== 'object' || Array.isArray(patch))) {
    throw newBadRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch === 'bigint' ? 'number' : typeof patch} into Go value of type map[string]interface {}`);
  }
  if (type === 'merge' && Array.isArray(patch)) {
    throw newBadRequest('error decoding patch: the patch must be a JSON object, got an array');
  }
  const name = ctx.info.name;

  let warningsBefore = ctx.warnings.length;
  const updated = await scope.storage.guaranteedUpdate(
    scopeKey(scope, ctx.info.namespace, name),
    async (current) => {
      // A retry after a write conflict starts over: drop warnings of the previous attempt.
      ctx.warnings.length = warningsBefore;
      warningsBefore = ctx.warnings.length;
      const base = withTypeMeta(scope, structuredClone(current));
      const patched = applyPatch(base, patch, type, { apiVersion: scope.schemaApiVersion, kind: scope.def.kind });
      if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
        throw newBadRequest('the patch turned the object into something that is not an object');
      }
      const obj: ApiObject = toTypedObject(scope, ctx, patched as Record<string, unknown>, mode, duplicates);
      return prepareUpdate(scope, ctx, obj, current, { manager, dryRun, name });
    },
    { dryRun, signal: ctx.signal, request: ctx },
  );
  const result = await finishDeletionIfFinalized(scope, ctx, updated, dryRun);
  writeObject(ctx, 200, withTypeMeta(scope, result), choice);
}

/**
 * Decodes an apply configuration as kube-apiserver's applyPatcher: YAML (JSON is YAML) into an
 * object, repeated keys tolerated (last wins); with fieldValidation Strict or Warn a repeated key
 * is a 400 `error strict decoding YAML: ...` or a warning.
 */
function decodeApplyBody(ctx: RequestContext, text: string, mode: FieldValidation): unknown {
  // kubectl and most clients send JSON: decode it as JSON (the same value YAML gives, much
  // faster); YAML, and JSON with repeated keys (for the YAML decoder's wording), take the YAML path.
  if (/^\s*\{/.test(text)) {
    try {
      const decoded = decodeJson(text, { findDuplicates: mode !== 'Ignore', beyondInt64: 'exact' });
      if (decoded.duplicates.length === 0) return decoded.value;
    } catch (err) {
      if (!(err instanceof JsonDecodeError)) throw err;
    }
  }
  let decoded: DecodedBody;
  try {
    decoded = decodeBody(Buffer.from(text, 'utf8'), APPLY_PATCH_CONTENT_TYPE, mode !== 'Ignore');
  } catch (err) {
    if (!isStatusError(err, 'BadRequest')) throw err;
    throw newBadRequest(`error decoding YAML: ${err.message.replace(/^error converting YAML to JSON: /, '')}`);
  }
  const value = decoded.value;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw newBadRequest(`error decoding YAML: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type map[string]interface {}`);
  }
  if (decoded.duplicates.length) {
    if (mode === 'Strict') throw newBadRequest(`error strict decoding YAML: ${decoded.duplicates.join(', ')}`);
    ctx.warnings.push(...decoded.duplicates);
  }
  return value;
}

/** How often an apply that lost a create race to another writer starts over as an update. */
const maxCreateRaces = 3;

/**
 * Server-side apply: merges the manager's configuration into the stored object (creating it
 * when missing, 201) with field ownership; conflicts with other managers are a 409 unless
 * `force`. Validation, admission, dryRun and resourceVersion preconditions as any write.
 */
async function applyResource(
  scope: ResourceScope,
  ctx: RequestContext,
  text: string,
  o: { manager: string; force: boolean; dryRun: boolean; mode: FieldValidation; choice: ReturnType<typeof negotiateOutput> },
): Promise<void> {
  const applied = decodeApplyBody(ctx, text, o.mode);
  const name = ctx.info.name;
  const checkName = (obj: ApiObject): void => {
    const objName = obj.metadata?.name ?? '';
    if (objName !== name) throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  };
  const applyTo = (live: ApiObject | undefined): ApiObject => {
    const r = apply({
      live: live ? withTypeMeta(scope, structuredClone(live)) : undefined,
      applied: structuredClone(applied),
      manager: o.manager,
      force: o.force,
      apiVersion: scope.apiVersion,
      kind: scope.def.kind,
      // Fieldsets of every version are compared as one: the versions have the same fields, so
      // Kubernetes' version converter (k8s.io/apimachinery pkg/util/managedfields/internal/
      // versionconverter.go, via the hub) maps each manager's set 1:1.
      schema: applyTypeForKind(scope.schemaApiVersion, scope.def.kind),
      now: new Date(),
    });
    if (r.conflicts.length) throw newApplyConflictError(r.conflicts);
    // An apply that changes nothing (not even managedFields) stores nothing: keep the stored
    // object as it is, key order included, so the storage sees no change (no new resourceVersion).
    const unchanged =
      live && !r.changed && encodeJson(r.managedFields) === encodeJson(live.metadata?.managedFields ?? []);
    // Served in the request's version (the stored one may be another): only apiVersion differs.
    const next = unchanged ? { ...structuredClone(live), apiVersion: scope.apiVersion } : r.object;
    const obj = toTypedObject(scope, ctx, next as Record<string, unknown>, o.mode, []);
    checkName(obj);
    return obj;
  };

  let warningsBefore = ctx.warnings.length;
  let updated: ApiObject | undefined;
  // Two appliers racing to create the same object: the one that loses the create applies again,
  // now as an update of what the other created (kube-apiserver does both in one update loop).
  for (let attempt = 1; !updated; attempt++) {
    try {
      updated = await scope.storage.guaranteedUpdate(
        scopeKey(scope, ctx.info.namespace, name),
        async (current) => {
          ctx.warnings.length = warningsBefore;
          warningsBefore = ctx.warnings.length;
          const obj = applyTo(current);
          return prepareUpdate(scope, ctx, obj, current, { manager: o.manager, dryRun: o.dryRun, name, managedFields: 'keep' });
        },
        { dryRun: o.dryRun, signal: ctx.signal, request: ctx },
      );
    } catch (err) {
      // Apply creates what is missing (kube-apiserver's forceAllowCreate for apply patches).
      if (!isStatusError(err, 'NotFound')) throw err;
      ctx.warnings.length = warningsBefore;
      const obj = applyTo(undefined);
      try {
        const created = await createObject(scope, ctx, obj, { dryRun: o.dryRun, manager: o.manager, managedFields: 'keep' });
        writeObject(ctx, 201, withTypeMeta(scope, created), o.choice);
        return;
      } catch (createErr) {
        if (!isStatusError(createErr, 'AlreadyExists') || attempt >= maxCreateRaces) throw createErr;
      }
    }
  }
  const result = await finishDeletionIfFinalized(scope, ctx, updated, o.dryRun);
  writeObject(ctx, 200, withTypeMeta(scope, result), o.choice);
}

/** The patch as the audit event carries it: JSON as sent (kube's LogRequestPatch), else the text. */
function patchForAudit(text: string): unknown {
  try {
    return decodeJson(text, { beyondInt64: 'exact' }).value;
  } catch {
    return text;
  }
}
