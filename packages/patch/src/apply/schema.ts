import { kubernetesPatchSchemaTable } from '../generated/kubernetes-patch-schema.js';
import { builtinStrategicSchema, lookupStrategicSchema } from '../strategic-registry.js';
import { patchSchemaTableReader, type PackedPatchSchemaTable, type PatchSchemaTableReader, type StrategicFieldMeta, type StrategicSchema, type TableField } from '../strategic-schema.js';

/**
 * The type of a value as server-side apply sees it (structured-merge-diff's schema atoms):
 * - `leaf`: a scalar, or a value owned as a whole (an untyped part, Quantity, RawExtension);
 * - `struct`: named fields, granular unless `x-kubernetes-map-type: atomic`;
 * - `map`: string keys to values of one type, granular unless atomic;
 * - `list`: `atomic`, `set` (scalars owned per value) or `map` (items owned per key);
 * - `deduced`: no schema at all (a kind we know nothing of): objects are granular maps of
 *   deduced values, lists and scalars are leaves, as Kubernetes' deduced type.
 */
export type ApplyType = LeafType | StructType | MapType | ListType | DeducedType;

export interface LeafType {
  readonly kind: 'leaf';
}
export interface DeducedType {
  readonly kind: 'deduced';
}
export interface StructType {
  readonly kind: 'struct';
  readonly name: string;
  readonly atomic: boolean;
  /** The type of a declared field, undefined for a field the schema does not declare. */
  field(name: string): ApplyType | undefined;
}
export interface MapType {
  readonly kind: 'map';
  readonly atomic: boolean;
  readonly value: ApplyType;
}
export interface ListType {
  readonly kind: 'list';
  readonly listType: 'atomic' | 'set' | 'map';
  /** The key fields of a `map` list (`x-kubernetes-list-map-keys`). */
  readonly keys: readonly string[];
  readonly item: ApplyType;
}

export const LEAF: LeafType = { kind: 'leaf' };
export const DEDUCED: DeducedType = { kind: 'deduced' };

interface FieldDescription {
  readonly shape: 'field' | 'list' | 'map';
  readonly element: () => ApplyType | undefined;
  readonly patchStrategies: readonly string[];
  readonly mergeKey?: string;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
}

/**
 * A field's type from its OpenAPI extensions, with kube-openapi's rules (schemaconv): a list's
 * `x-kubernetes-list-type` decides; without one, `x-kubernetes-patch-strategy: merge` makes a
 * map list keyed by the patch merge key (a set when there is none); anything else is atomic.
 */
function fieldType(d: FieldDescription): ApplyType {
  const element = d.element();
  if (d.shape === 'list') {
    const item = element ?? LEAF;
    if (d.listType === 'atomic') return { kind: 'list', listType: 'atomic', keys: [], item };
    if (d.listType === 'set') return { kind: 'list', listType: 'set', keys: [], item };
    if (d.listType === 'map') return { kind: 'list', listType: 'map', keys: d.listMapKeys ?? [], item };
    if (d.patchStrategies.includes('merge')) {
      return d.mergeKey
        ? { kind: 'list', listType: 'map', keys: [d.mergeKey], item }
        : { kind: 'list', listType: 'set', keys: [], item };
    }
    return { kind: 'list', listType: 'atomic', keys: [], item };
  }
  if (d.shape === 'map') return { kind: 'map', atomic: d.mapType === 'atomic', value: element ?? LEAF };
  if (!element) return LEAF;
  if (element.kind === 'struct' && d.mapType && (d.mapType === 'atomic') !== element.atomic) {
    return { ...element, atomic: d.mapType === 'atomic', field: element.field.bind(element) };
  }
  return element;
}

/** Reads the generated table (tools/patch-schema) directly, keeping each type's own map type. */
class TableTypes {
  private readonly types: (ApplyType | undefined)[] = [];
  private readonly table: PatchSchemaTableReader;

  constructor(table: PackedPatchSchemaTable) {
    this.table = patchSchemaTableReader(table);
  }

  forKind(apiVersion: string, kind: string): ApplyType | undefined {
    const i = this.table.kind(`${apiVersion}/${kind}`);
    return i === undefined ? undefined : this.at(i);
  }

  forDefinition(name: string): ApplyType | undefined {
    const i = this.table.indexOf(name);
    return i === undefined ? undefined : this.at(i);
  }

  private at(i: number): ApplyType {
    let t = this.types[i];
    if (!t) {
      t = this.build(i);
      this.types[i] = t;
    }
    return t;
  }

  private build(i: number): ApplyType {
    const [definition, fields, mapType] = this.table.type(i);
    // A definition without properties (Quantity, Time, IntOrString, RawExtension, JSON) is
    // owned as a whole.
    if (!fields) return LEAF;
    const cache = new Map<string, ApplyType>();
    return {
      kind: 'struct',
      name: definition.slice(definition.lastIndexOf('.') + 1),
      atomic: mapType === 'atomic',
      field: (name) => {
        if (!Object.prototype.hasOwnProperty.call(fields, name)) return undefined;
        let t = cache.get(name);
        if (!t) {
          t = fieldType(this.describe(fields[name]));
          cache.set(name, t);
        }
        return t;
      },
    };
  }

  private describe(f: TableField): FieldDescription {
    if (f === 0) return { shape: 'field', element: () => undefined, patchStrategies: [] };
    const [ref, shape = 0, mergeKey = '', strategy = '', listType = '', listMapKeys = 0, mapType = ''] = f;
    return {
      shape: shape === 1 ? 'list' : shape === 2 ? 'map' : 'field',
      element: () => (ref >= 0 ? this.at(ref) : undefined),
      patchStrategies: strategy ? strategy.split(',') : [],
      mergeKey: mergeKey || undefined,
      listType: listType || undefined,
      listMapKeys: listMapKeys || undefined,
      mapType: mapType || undefined,
    };
  }
}

const builtinTypes = new TableTypes(kubernetesPatchSchemaTable);

/** The apply type of a built-in definition by OpenAPI name (`io.k8s.api.apps.v1.DeploymentSpec`). */
export function builtinApplyType(definition: string): ApplyType | undefined {
  return builtinTypes.forDefinition(definition);
}

// Strategic schemas handed out by the generated table, by identity, so a hand-written schema
// that embeds one (ClusterTrustBundle's metadata is ObjectMeta) keeps the table's type-level
// map types (OwnerReference is atomic).
let builtinByIdentity: WeakMap<StrategicSchema, string> | undefined;

function builtinDefinitionOf(schema: StrategicSchema): string | undefined {
  if (!builtinByIdentity) {
    builtinByIdentity = new WeakMap();
    const table = patchSchemaTableReader(kubernetesPatchSchemaTable);
    for (let i = 0; i < table.size; i++) {
      const name = table.name(i);
      const s = builtinStrategicSchema(name);
      if (s) builtinByIdentity.set(s, name);
    }
  }
  return builtinByIdentity.get(schema);
}

const fromStrategicCache = new WeakMap<StrategicSchema, ApplyType>();

/** The apply type of a strategic merge patch schema (a registered kind of our own). */
export function applyTypeFromStrategicSchema(schema: StrategicSchema): ApplyType {
  const cached = fromStrategicCache.get(schema);
  if (cached) return cached;
  const definition = builtinDefinitionOf(schema);
  const builtin = definition ? builtinTypes.forDefinition(definition) : undefined;
  if (builtin) {
    fromStrategicCache.set(schema, builtin);
    return builtin;
  }
  const cache = new Map<string, ApplyType | null>();
  const t: StructType = {
    kind: 'struct',
    name: schema.name,
    atomic: false,
    field: (name) => {
      let f = cache.get(name);
      if (f === undefined) {
        const meta = schema.lookupField(name);
        f = meta ? fieldType(describeMeta(meta)) : null;
        cache.set(name, f);
      }
      return f ?? undefined;
    },
  };
  fromStrategicCache.set(schema, t);
  return t;
}

function describeMeta(meta: StrategicFieldMeta): FieldDescription {
  return {
    shape: meta.shape,
    element: () => (meta.schema ? applyTypeFromStrategicSchema(meta.schema) : undefined),
    patchStrategies: meta.patchStrategies,
    mergeKey: meta.patchMergeKey,
    listType: meta.listType,
    listMapKeys: meta.listMapKeys,
    mapType: meta.mapType,
  };
}

/**
 * The apply type of a kind: a registered schema of our own first (ClusterTrustBundle), then the
 * built-in Kubernetes kinds, else the deduced type (custom resources, unknown kinds).
 */
export function applyTypeForKind(apiVersion: string, kind: string): ApplyType {
  const builtin = builtinTypes.forKind(apiVersion, kind);
  const registered = lookupStrategicSchema(apiVersion, kind);
  if (registered && builtinDefinitionOf(registered) === undefined) return applyTypeFromStrategicSchema(registered);
  return builtin ?? (registered ? applyTypeFromStrategicSchema(registered) : DEDUCED);
}
