import {
  fieldError,
  newBadRequest,
  newUnsupportedMediaType,
  type ApiObject,
  type FieldError,
} from '@plat/api-model';
import { applyPatch, type PatchType } from '@plat/patch';
import type { RequestContext } from '../context.js';
import { findDuplicateJsonKeys } from '../json-duplicates.js';
import { negotiateOutput } from '../negotiation.js';
import { contentTypeOf, readBody } from '../request-body.js';
import { writeObject } from '../response.js';
import { finishDeletionIfFinalized } from './finalize.js';
import { dryRunErrors, invalidOptions, parseBool, parseFieldManager, parseFieldValidation } from './options.js';
import { scopeKey, withTypeMeta, type ResourceScope } from './scope.js';
import { prepareUpdate } from './update.js';
import { toTypedObject } from './write-pipeline.js';

const patchMediaTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
};

/**
 * PATCH .../<resource>/<name> with a JSON patch, JSON merge patch or strategic merge patch.
 * Server-side apply (`application/apply-patch+yaml`) is not served yet: 415 like any other type.
 */
export async function patchResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const mediaType = contentTypeOf(ctx);
  const type = patchMediaTypes[mediaType];
  if (!type) throw newUnsupportedMediaType(mediaType, Object.keys(patchMediaTypes));

  // Kubernetes' ValidatePatchOptions.
  const errs: FieldError[] = [];
  if (parseBool(ctx.query.get('force'), 'force') !== undefined) {
    errs.push(fieldError.forbidden('force', 'may not be specified for non-apply patch'));
  }
  errs.push(...dryRunErrors(ctx.query.getAll('dryRun')));
  if (errs.length) throw invalidOptions('PatchOptions', errs);
  const dryRun = ctx.query.getAll('dryRun').length > 0;
  const mode = parseFieldValidation(ctx, 'PatchOptions');
  const manager = parseFieldManager(ctx, 'PatchOptions');

  const body = await readBody(ctx, scope.maxBodyBytes);
  const text = body.toString('utf8');
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${(err as Error).message}`);
  }
  if (type !== 'json' && (patch === null || typeof patch !== 'object' || Array.isArray(patch))) {
    throw newBadRequest(`error decoding patch: the patch must be a JSON object, got ${Array.isArray(patch) ? 'an array' : JSON.stringify(patch)}`);
  }
  const duplicates =
    type !== 'json' && mode !== 'Ignore' ? findDuplicateJsonKeys(text).map((path) => `duplicate field ${JSON.stringify(path)}`) : [];
  const name = ctx.info.name;

  let warningsBefore = ctx.warnings.length;
  const updated = await scope.storage.guaranteedUpdate(
    scopeKey(scope, name),
    async (current) => {
      // A retry after a write conflict starts over: drop warnings of the previous attempt.
      ctx.warnings.length = warningsBefore;
      warningsBefore = ctx.warnings.length;
      const base = withTypeMeta(scope, structuredClone(current));
      const patched = applyPatch(base, patch, type, { apiVersion: scope.apiVersion, kind: scope.def.kind });
      if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
        throw newBadRequest('the patch turned the object into something that is not an object');
      }
      const obj: ApiObject = toTypedObject(scope, ctx, patched as Record<string, unknown>, mode, duplicates);
      return prepareUpdate(scope, ctx, obj, current, { manager, dryRun, name });
    },
    { dryRun, signal: ctx.signal },
  );
  const result = await finishDeletionIfFinalized(scope, ctx, updated, dryRun);
  writeObject(ctx, 200, withTypeMeta(scope, result), choice);
}
