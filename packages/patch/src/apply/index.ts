export { apply, BEFORE_FIRST_APPLY_MANAGER, describeManager, newApplyConflictError, type ApplyOptions, type ApplyResult } from './apply.js';
export {
  FieldSet,
  FieldsV1DecodeError,
  comparePathElements,
  decodePathElement,
  encodePathElement,
  pathString,
  type FieldPath,
  type PathElement,
} from './fieldpath.js';
export { KUBECTL_MANAGER, LAST_APPLIED_ANNOTATION } from './last-applied.js';
export {
  ANCIENT_CHANGES_MANAGER,
  FIELD_MANAGER_MAX_LENGTH,
  fieldManagerFor,
  MAX_UPDATE_MANAGERS,
  ManagedFieldsDecodeError,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  type ManagedOperation,
  type Manager,
  type Managers,
} from './managed-fields.js';
export { STRIPPED_FIELDS, formatTime, type ApplyConflict } from './ownership.js';
export { recordUpdate, type RecordUpdateOptions, type RecordUpdateResult } from './record-update.js';
export {
  DEDUCED,
  LEAF,
  applyTypeForKind,
  applyTypeFromStrategicSchema,
  builtinApplyType,
  type ApplyType,
  type DeducedType,
  type LeafType,
  type ListType,
  type MapType,
  type StructType,
} from './schema.js';
export {
  TypedContext,
  compare as compareTyped,
  ensureNamedFieldsAreMembers,
  merge as structuredMerge,
  removeItems as removeFieldSet,
  toFieldSet,
  type Comparison,
  type TypeError as ApplyTypeError,
} from './typed.js';
