/**
 * The patch metadata of a type, as strategic merge patch looks it up field by field
 * (k8s.io/apimachinery strategicpatch.LookupPatchMeta): for each field, the schema of its value
 * (a list's item, a map's value), its patch strategies and merge key. List type, list map keys
 * and map type ride along for server-side apply.
 */
export interface StrategicSchema {
  /** The type's name as Kubernetes' Go code names it (`DeploymentSpec`): used in error texts. */
  readonly name: string;
  /**
   * The metadata of one field, or undefined when the type has no such field. A map type answers
   * every key with its value type; an opaque type (RawExtension, FieldsV1) answers none.
   */
  lookupField(key: string): StrategicFieldMeta | undefined;
}

export interface StrategicFieldMeta {
  /** The schema of the field's value: the struct, or a list's item, or a map's value. */
  readonly schema?: StrategicSchema;
  readonly shape: 'field' | 'list' | 'map';
  /** `x-kubernetes-patch-strategy` split on commas: `merge`, `replace`, `retainKeys`. */
  readonly patchStrategies: readonly string[];
  readonly patchMergeKey?: string;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
}

/** A field of a hand-written schema (`objectStrategicSchema`). */
export interface StrategicFieldDefinition {
  /** The value's schema; a function for recursive or late-bound types. */
  readonly schema?: StrategicSchema | (() => StrategicSchema);
  readonly list?: boolean;
  readonly map?: boolean;
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
}

/** A struct type from a literal description of its fields. */
export function objectStrategicSchema(
  name: string,
  fields: Readonly<Record<string, StrategicFieldDefinition>>,
): StrategicSchema {
  const metas = new Map<string, StrategicFieldMeta>();
  return {
    name,
    lookupField(key) {
      if (!Object.prototype.hasOwnProperty.call(fields, key)) return undefined;
      let meta = metas.get(key);
      if (!meta) {
        const f = fields[key];
        const schema = typeof f.schema === 'function' ? f.schema() : f.schema;
        meta = {
          schema,
          shape: f.list ? 'list' : f.map ? 'map' : 'field',
          patchStrategies: splitStrategies(f.patchStrategy),
          patchMergeKey: f.patchMergeKey || undefined,
          listType: f.listType,
          listMapKeys: f.listMapKeys,
          mapType: f.mapType,
        };
        metas.set(key, meta);
      }
      return meta;
    },
  };
}

function splitStrategies(s: string | undefined): readonly string[] {
  return s ? s.split(',') : [];
}

// ---------------------------------------------------------------------------------------------
// The generated table (tools/patch-schema/generate.mjs).

/**
 * A field in the generated table: `0` for a field without patch metadata or value type, else
 * `[typeIndex (-1 none), shape (0 field, 1 list, 2 map), mergeKey, strategy, listType,
 * listMapKeys, mapType]` with trailing empty entries left out.
 */
export type TableField =
  | 0
  | readonly [number, (0 | 1 | 2)?, string?, string?, string?, (readonly string[] | 0)?, string?];

/** `[definitionName, fields (null: opaque), mapType?]`. */
export type TableType = readonly [string, Readonly<Record<string, TableField>> | null, string?];

export interface PatchSchemaTable {
  readonly types: readonly TableType[];
  /** `apiVersion/Kind` → index into `types`. */
  readonly kinds: Readonly<Record<string, number>>;
  /** Kinds known under every apiVersion (the scheme's unversioned types: `Status`...) → index. */
  readonly unversioned?: Readonly<Record<string, number>>;
}

/**
 * The generated table as tools/patch-schema writes it, packed so that loading it parses nothing:
 * `packedTypes` holds one type per line (the JSON of its TableType), `packedKinds` and
 * `packedUnversioned` the JSON of `kinds` and `unversioned`. A type's line is parsed when the type
 * is first used, so `clientctl patch --local` on one kind does not parse a thousand types.
 */
export interface PackedPatchSchemaTable {
  readonly packedTypes: string;
  readonly packedKinds: string;
  readonly packedUnversioned: string;
}

/**
 * Lookups of a kind answered by searching the packed JSON of `kinds` before it is parsed: a
 * command line looks up one or two kinds, and parsing the 673 of them (an object of 673
 * properties) cost about 1 ms of `clientctl patch --local`; a server looks up many, and from
 * then on a property lookup is cheaper than a search.
 */
const kindSearchesBeforeParse = 16;

/**
 * The number a key of a packed JSON object of numbers (`{"a/v1/K":3,...}`) maps to, found without
 * parsing it: the key's JSON string followed by `:`, where a key starts (after `{` or `,`; inside
 * a key JSON writes `"` only as `\"`, so no key's text can look like a key's start).
 */
export function packedIndexOf(json: string, key: string): number | undefined {
  const needle = `${JSON.stringify(key)}:`;
  for (let at = json.indexOf(needle); at !== -1; at = json.indexOf(needle, at + 1)) {
    const before = json.charCodeAt(at - 1);
    if (before !== 0x7b && before !== 0x2c) continue;
    const value = Number.parseInt(json.slice(at + needle.length, at + needle.length + 12), 10);
    return Number.isNaN(value) ? undefined : value;
  }
  return undefined;
}

/** Reads a table, packed or not, one type at a time; made once per table by patchSchemaTableReader. */
export class PatchSchemaTableReader {
  private lines?: readonly string[];
  private readonly parsed: (TableType | undefined)[] = [];
  private names?: Map<string, number>;
  private kindIndex?: Readonly<Record<string, number>>;
  private unversionedIndex?: Readonly<Record<string, number>>;
  private kindSearches = 0;

  constructor(private readonly table: PatchSchemaTable | PackedPatchSchemaTable) {}

  private typeLines(): readonly string[] {
    if (!this.lines) this.lines = 'packedTypes' in this.table ? this.table.packedTypes.split('\n') : [];
    return this.lines;
  }

  get size(): number {
    return 'packedTypes' in this.table ? this.typeLines().length : this.table.types.length;
  }

  type(i: number): TableType {
    if (!('packedTypes' in this.table)) return this.table.types[i];
    let t = this.parsed[i];
    if (!t) {
      t = JSON.parse(this.typeLines()[i]) as TableType;
      this.parsed[i] = t;
    }
    return t;
  }

  /** The definition name of type i (`io.k8s.api.core.v1.PodSpec`), without parsing its line. */
  name(i: number): string {
    if (!('packedTypes' in this.table)) return this.table.types[i][0];
    // A line starts with the JSON string of the name, which has no escapes (an OpenAPI definition name).
    const line = this.typeLines()[i];
    return line.slice(2, line.indexOf('"', 2));
  }

  /** The index of a definition by name. */
  indexOf(name: string): number | undefined {
    if (!this.names) {
      const names = new Map<string, number>();
      for (let i = 0; i < this.size; i++) names.set(this.name(i), i);
      this.names = names;
    }
    return this.names.get(name);
  }

  /** The index of `apiVersion/Kind`, if the table has the kind. */
  kind(key: string): number | undefined {
    if (!this.kindIndex && 'packedKinds' in this.table && this.kindSearches < kindSearchesBeforeParse) {
      this.kindSearches++;
      return packedIndexOf(this.table.packedKinds, key);
    }
    this.kindIndex ??= 'packedKinds' in this.table ? (JSON.parse(this.table.packedKinds) as Record<string, number>) : this.table.kinds;
    return Object.hasOwn(this.kindIndex, key) ? this.kindIndex[key] : undefined;
  }

  /** The index of a kind known under every apiVersion (`Status`). */
  unversioned(kind: string): number | undefined {
    this.unversionedIndex ??= 'packedUnversioned' in this.table ? (JSON.parse(this.table.packedUnversioned) as Record<string, number>) : (this.table.unversioned ?? {});
    return Object.hasOwn(this.unversionedIndex, kind) ? this.unversionedIndex[kind] : undefined;
  }
}

const readers = new WeakMap<object, PatchSchemaTableReader>();

/** The reader of a table, shared by everyone reading the same table (strategic and apply schemas). */
export function patchSchemaTableReader(table: PatchSchemaTable | PackedPatchSchemaTable): PatchSchemaTableReader {
  let r = readers.get(table);
  if (!r) {
    r = new PatchSchemaTableReader(table);
    readers.set(table, r);
  }
  return r;
}

/** Resolves table entries to schemas lazily and once each. */
export class TableSchemas {
  private readonly schemas: (StrategicSchema | undefined)[] = [];
  private readonly table: PatchSchemaTableReader;

  constructor(table: PatchSchemaTable | PackedPatchSchemaTable) {
    this.table = patchSchemaTableReader(table);
  }

  /**
   * The schema of a kind (`apps/v1`, `Deployment`), if the table has it; an unversioned kind
   * under any apiVersion, as runtime.Scheme.New finds it.
   */
  forKind(apiVersion: string, kind: string): StrategicSchema | undefined {
    const i = this.table.kind(`${apiVersion}/${kind}`) ?? this.table.unversioned(kind);
    return i === undefined ? undefined : this.at(i);
  }

  /** The schema of a definition by its OpenAPI name (`io.k8s.api.core.v1.PodSpec`). */
  forDefinition(name: string): StrategicSchema | undefined {
    const i = this.table.indexOf(name);
    return i === undefined ? undefined : this.at(i);
  }

  private at(i: number): StrategicSchema {
    let s = this.schemas[i];
    if (!s) {
      s = this.build(i);
      this.schemas[i] = s;
    }
    return s;
  }

  private build(i: number): StrategicSchema {
    const [definition, fields] = this.table.type(i);
    const name = definition.slice(definition.lastIndexOf('.') + 1);
    if (!fields) return { name, lookupField: () => undefined };
    const metas = new Map<string, StrategicFieldMeta>();
    return {
      name,
      lookupField: (key) => {
        if (!Object.prototype.hasOwnProperty.call(fields, key)) return undefined;
        let meta = metas.get(key);
        if (!meta) {
          meta = this.fieldMeta(fields[key]);
          metas.set(key, meta);
        }
        return meta;
      },
    };
  }

  private fieldMeta(f: TableField): StrategicFieldMeta {
    if (f === 0) return { shape: 'field', patchStrategies: [] };
    const [ref, shape = 0, mergeKey = '', strategy = '', listType = '', listMapKeys = 0, mapType = ''] = f;
    return {
      schema: ref >= 0 ? this.at(ref) : undefined,
      shape: shape === 1 ? 'list' : shape === 2 ? 'map' : 'field',
      patchStrategies: splitStrategies(strategy),
      patchMergeKey: mergeKey || undefined,
      listType: listType || undefined,
      listMapKeys: listMapKeys || undefined,
      mapType: mapType || undefined,
    };
  }
}
