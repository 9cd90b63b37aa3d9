import { applyJsonPatch, type JsonPatchOptions } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { newStrategicMergeNotSupported } from './patch-errors.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { lookupStrategicSchema } from './strategic-registry.js';

/** The patch types of `kubectl patch --type` (server-side apply is not a patch of this kind). */
export type PatchType = 'json' | 'merge' | 'strategic';

export interface ApplyPatchOptions {
  /** The object's apiVersion and kind: they choose the strategic merge patch schema. */
  readonly apiVersion: string;
  readonly kind: string;
  /** Server limits for JSON patch (see applyJsonPatch); none by default, as `kubectl --local`. */
  readonly jsonPatch?: JsonPatchOptions;
}

/** The Content-Type of each patch type on the wire. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** Server-side apply's media type (handled by server-side apply, not by applyPatch). */
export const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

/**
 * The PATCH media types kube-apiserver accepts for a kind, in its order: built-in kinds (and ours,
 * with a registered schema) take strategic merge patch; custom resources do not. A request with
 * another type gets 415 listing these (`newUnsupportedMediaType` in @plat/api-model).
 */
export function acceptedPatchContentTypes(apiVersion: string, kind: string): string[] {
  const types = [PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge];
  if (lookupStrategicSchema(apiVersion, kind)) types.push(PATCH_CONTENT_TYPES.strategic);
  types.push(APPLY_PATCH_CONTENT_TYPE);
  return types;
}

/** The patch type of a PATCH request's Content-Type (parameters ignored), or undefined. */
export function patchTypeForContentType(contentType: string): PatchType | undefined {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  for (const [type, ct] of Object.entries(PATCH_CONTENT_TYPES) as [PatchType, string][]) {
    if (ct === mediaType) return type;
  }
  return undefined;
}

/**
 * Applies a decoded patch of the given type to a decoded object and returns the new object.
 * Neither input is changed. Failures are StatusErrors; strategic merge patch of a kind without a
 * schema (custom resources, unknown kinds) fails with kubectl's message and code 415.
 */
export function applyPatch(doc: unknown, patch: unknown, type: PatchType, opts: ApplyPatchOptions): unknown {
  switch (type) {
    case 'json':
      return applyJsonPatch(doc, patch, opts.jsonPatch);
    case 'merge':
      return applyMergePatch(doc, patch);
    case 'strategic': {
      const schema = lookupStrategicSchema(opts.apiVersion, opts.kind);
      if (!schema) throw newStrategicMergeNotSupported(opts.apiVersion, opts.kind);
      return applyStrategicMergePatch(doc, patch, schema);
    }
    default:
      throw new TypeError(`unknown patch type ${JSON.stringify(type)}`);
  }
}
