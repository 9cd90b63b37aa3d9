export {
  applyPatch,
  PATCH_CONTENT_TYPES,
  patchTypeForContentType,
  type ApplyPatchOptions,
  type PatchType,
} from './apply-patch.js';
export {
  applyJsonPatch,
  decodeJsonPatch,
  MAX_JSON_PATCH_COPY_BYTES,
  MAX_JSON_PATCH_OPERATIONS,
  type JsonPatchOptions,
} from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export {
  builtinStrategicSchema,
  clusterTrustBundleSchema,
  lookupStrategicSchema,
  registerStrategicSchema,
} from './strategic-registry.js';
export {
  objectStrategicSchema,
  type StrategicFieldDefinition,
  type StrategicFieldMeta,
  type StrategicSchema,
} from './strategic-schema.js';
export { gvkString, newStrategicMergeNotSupported } from './patch-errors.js';
