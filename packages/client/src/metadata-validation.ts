import { goJsonKind } from './unstructured.js';

/**
 * kubectl's metadataValidatingDecoder: before an object read from a file is used, its
 * apiVersion, kind and metadata are decoded into Go's TypeMeta and ObjectMeta, so a label value
 * that YAML made a boolean (`app: y`) or a name that is a number fails as it fails there:
 * `json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string`.
 * Returns that text, or undefined. Follows encoding/json: the first type error is kept while
 * decoding goes on, an error of a custom decoder (metav1.Time) ends it and wins.
 */
export function metadataTypeError(doc: Record<string, unknown>): string | undefined {
  const state: DecodeState = { path: [] };
  try {
    decodeStruct(doc, metadataOnlyObject, state);
  } catch (err) {
    if (err instanceof Abort) return err.message;
    throw err;
  }
  return state.saved;
}

type GoType =
  | { t: 'scalar'; go: 'string' | 'int64' | 'bool'; name: string }
  | { t: 'time'; name: string }
  | { t: 'any' }
  | { t: 'map'; name: string; value: GoType }
  | { t: 'slice'; name: string; item: GoType }
  | { t: 'struct'; name: string; goName: string; fields: Record<string, GoType> };

const str = (name = 'string'): GoType => ({ t: 'scalar', go: 'string', name });
const int64: GoType = { t: 'scalar', go: 'int64', name: 'int64' };
const bool: GoType = { t: 'scalar', go: 'bool', name: 'bool' };
const time: GoType = { t: 'time', name: 'v1.Time' };

const ownerReference: GoType = {
  t: 'struct',
  name: 'v1.OwnerReference',
  goName: 'OwnerReference',
  fields: { apiVersion: str(), kind: str(), name: str(), uid: str('types.UID'), controller: bool, blockOwnerDeletion: bool },
};
const managedFieldsEntry: GoType = {
  t: 'struct',
  name: 'v1.ManagedFieldsEntry',
  goName: 'ManagedFieldsEntry',
  fields: {
    manager: str(),
    operation: str('v1.ManagedFieldsOperationType'),
    apiVersion: str(),
    time,
    fieldsType: str(),
    fieldsV1: { t: 'any' },
    subresource: str(),
  },
};
const objectMeta: GoType = {
  t: 'struct',
  name: 'v1.ObjectMeta',
  goName: 'ObjectMeta',
  fields: {
    name: str(),
    generateName: str(),
    namespace: str(),
    selfLink: str(),
    uid: str('types.UID'),
    resourceVersion: str(),
    generation: int64,
    creationTimestamp: time,
    deletionTimestamp: time,
    deletionGracePeriodSeconds: int64,
    labels: { t: 'map', name: 'map[string]string', value: str() },
    annotations: { t: 'map', name: 'map[string]string', value: str() },
    ownerReferences: { t: 'slice', name: '[]v1.OwnerReference', item: ownerReference },
    finalizers: { t: 'slice', name: '[]string', item: str() },
    managedFields: { t: 'slice', name: '[]v1.ManagedFieldsEntry', item: managedFieldsEntry },
  },
};
const metadataOnlyObject: GoType & { t: 'struct' } = {
  t: 'struct',
  name: 'resource.metadataOnlyObject',
  goName: 'metadataOnlyObject',
  fields: { apiVersion: str(), kind: str(), metadata: objectMeta },
};

interface DecodeState {
  /** The JSON names of the struct fields being decoded (Go's errorContext.FieldStack). */
  path: string[];
  /** The struct type those fields belong to (errorContext.Struct). */
  struct?: string;
  saved?: string;
}

class Abort extends Error {}

function typeError(state: DecodeState, value: string, type: string): string {
  if (!state.struct && !state.path.length) return `json: cannot unmarshal ${value} into Go value of type ${type}`;
  return `json: cannot unmarshal ${value} into Go struct field ${state.struct ?? ''}.${state.path.join('.')} of type ${type}`;
}

function save(state: DecodeState, value: string, type: string): void {
  state.saved ??= typeError(state, value, type);
}

function decodeStruct(v: Record<string, unknown>, type: GoType & { t: 'struct' }, state: DecodeState): void {
  for (const [key, value] of Object.entries(v)) {
    // kubectl decodes with sigs.k8s.io/json, which matches field names case-sensitively.
    if (!Object.hasOwn(type.fields, key)) continue;
    const name = key;
    const outer = { path: state.path, struct: state.struct };
    state.path = [...state.path, name];
    state.struct = type.goName;
    decodeValue(value, type.fields[name], state);
    state.path = outer.path;
    state.struct = outer.struct;
  }
}

function decodeValue(value: unknown, type: GoType, state: DecodeState): void {
  if (value === null || type.t === 'any') return;
  const kind = goJsonKind(value);
  switch (type.t) {
    case 'time':
      // metav1.Time decodes itself from a string; its error ends the decoding.
      if (typeof value !== 'string') throw new Abort(typeError(state, kind, 'string'));
      return;
    case 'scalar':
      if (type.go === 'string' && typeof value !== 'string') save(state, kind, type.name);
      else if (type.go === 'bool' && typeof value !== 'boolean') save(state, kind, type.name);
      else if (type.go === 'int64') {
        // An int64 past 2^53 comes from the decoders as a bigint, always in range.
        if (typeof value === 'bigint') return;
        if (typeof value !== 'number') save(state, kind, type.name);
        else if (!Number.isInteger(value) || Math.abs(value) > 2 ** 63) save(state, `number ${String(value)}`, type.name);
      }
      return;
    case 'map':
      if (kind !== 'object') return save(state, kind, type.name);
      for (const item of Object.values(value as Record<string, unknown>)) decodeValue(item, type.value, state);
      return;
    case 'slice':
      if (kind !== 'array') return save(state, kind, type.name);
      for (const item of value as unknown[]) decodeValue(item, type.item, state);
      return;
    case 'struct':
      if (kind !== 'object') return save(state, kind, type.name);
      decodeStruct(value as Record<string, unknown>, type, state);
  }
}
