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

/** Resolves table entries to schemas lazily and once each. */
export class TableSchemas {
  private readonly schemas: (StrategicSchema | undefined)[] = [];
  private readonly byName = new Map<string, number>();

  constructor(private readonly table: PatchSchemaTable) {
    table.types.forEach((t, i) => this.byName.set(t[0], i));
  }

  /**
   * The schema of a kind (`apps/v1`, `Deployment`), if the table has it; an unversioned kind
   * under any apiVersion, as runtime.Scheme.New finds it.
   */
  forKind(apiVersion: string, kind: string): StrategicSchema | undefined {
    const key = `${apiVersion}/${kind}`;
    const unversioned = this.table.unversioned ?? {};
    const i = Object.hasOwn(this.table.kinds, key) ? this.table.kinds[key] : Object.hasOwn(unversioned, kind) ? unversioned[kind] : undefined;
    return i === undefined ? undefined : this.at(i);
  }

  /** The schema of a definition by its OpenAPI name (`io.k8s.api.core.v1.PodSpec`). */
  forDefinition(name: string): StrategicSchema | undefined {
    const i = this.byName.get(name);
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
    const [definition, fields] = this.table.types[i];
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
