import { isStatusError } from '@plat/api-model';
import { applyPatch, lookupStrategicSchema, newStrategicMergeNotSupported, type PatchType } from '@plat/patch';
import { ClientError } from './client-error.js';
import { goJson } from './object-printer.js';
import type { PatchDocument } from './patch-document.js';
import type { KubeObject } from './unstructured.js';
import { decodeUnstructuredValue } from './unstructured.js';

/**
 * `kubectl patch --local` for one object (its getPatchedJSON, then the unstructured decoding of
 * the result): the patched object, or a ClientError with the text kubectl prints after
 * `error: `. Strategic merge patch needs a kind kubectl's scheme knows.
 */
export function patchLocally(object: KubeObject, patch: PatchDocument, type: PatchType): KubeObject {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  let patched: unknown;
  try {
    if (patch.syntaxError !== undefined) {
      // The libraries decode the patch after the object (and strategic merge after the type).
      if (type === 'strategic' && !lookupStrategicSchema(apiVersion, kind)) throw newStrategicMergeNotSupported(apiVersion, kind);
      const text = { strategic: 'invalid JSON document', merge: 'Invalid JSON Patch', json: patch.syntaxError }[type];
      throw new ClientError('PatchFailed', text);
    }
    patched = applyPatch(object, patch.value, type, { apiVersion, kind });
  } catch (err) {
    if (isStatusError(err)) throw new ClientError('PatchFailed', err.message);
    throw err;
  }
  const { object: result, items } = decodeUnstructuredValue(patched, goJson(patched, 0));
  return items ? { ...result, items } : result;
}
