import type { ManagedFieldsEntry } from '@plat/api-model';
import { FieldSet, pathString } from '../../src/apply/fieldpath.js';
import { LEAF, builtinApplyType, type ApplyType, type ListType, type StructType } from '../../src/apply/schema.js';

/** A small kind for the engine's tables: one field of every shape under `spec`. */
export function struct(name: string, fields: Record<string, ApplyType>, atomic = false): StructType {
  return {
    kind: 'struct',
    name,
    atomic,
    field: (n) => (Object.prototype.hasOwnProperty.call(fields, n) ? fields[n] : undefined),
  };
}

export function list(listType: ListType['listType'], item: ApplyType = LEAF, keys: string[] = []): ListType {
  return { kind: 'list', listType, keys, item };
}

const item = struct('Item', { name: LEAF, value: LEAF, extra: LEAF });

export const TEST_API_VERSION = 'test.plat.io/v1';

export const testType: StructType = struct('Widget', {
  apiVersion: LEAF,
  kind: LEAF,
  metadata: builtinApplyType('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!,
  spec: struct('WidgetSpec', {
    a: LEAF,
    b: LEAF,
    c: LEAF,
    m: { kind: 'map', atomic: false, value: LEAF },
    am: { kind: 'map', atomic: true, value: LEAF },
    s: list('set'),
    al: list('atomic'),
    ml: list('map', item, ['name']),
    nested: struct('Nested', { x: LEAF, y: LEAF }),
    sel: struct('Selector', { k: LEAF, v: LEAF }, true),
  }),
  status: struct('WidgetStatus', { phase: LEAF }),
});

/** Owners given as FieldsV1 trees, keyed `name` (Apply) or `name@Update`. */
export type Owners = Record<string, Record<string, unknown>>;

export function entries(owners: Owners, time = '2026-01-01T00:00:00Z'): ManagedFieldsEntry[] {
  return Object.entries(owners).map(([key, fieldsV1]) => {
    const [manager, operation = 'Apply'] = key.split('@');
    return {
      manager,
      operation: operation as 'Apply' | 'Update',
      apiVersion: TEST_API_VERSION,
      time,
      fieldsType: 'FieldsV1',
      fieldsV1,
    };
  });
}

/** managedFields as `{ "name" | "name@Update": [".spec.a", ...] }` for assertions. */
export function ownersOf(managedFields: readonly ManagedFieldsEntry[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of managedFields ?? []) {
    const key = e.operation === 'Apply' ? e.manager! : `${e.manager}@${e.operation}`;
    out[key] = FieldSet.fromFieldsV1(e.fieldsV1 ?? {})
      .paths()
      .map(pathString);
  }
  return out;
}

export function widget(spec: unknown, managedFields?: ManagedFieldsEntry[]): Record<string, unknown> {
  return {
    apiVersion: TEST_API_VERSION,
    kind: 'Widget',
    metadata: { name: 'w', ...(managedFields ? { managedFields } : {}) },
    ...(spec === undefined ? {} : { spec }),
  };
}
