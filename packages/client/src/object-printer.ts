import { stringify as stringifyYaml } from 'yaml';

/**
 * Serialises like Go's encoding/json (what kubectl's printers use): map keys sorted, `<`, `>`
 * and `&` as \u escapes, U+2028/U+2029 escaped, `indent` spaces per level.
 */
export function goJson(value: unknown, indent = 4, sortKeys = true): string {
  const text = JSON.stringify(value, sortKeys ? sortedReplacer : undefined, indent || undefined);
  return (text ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortedReplacer(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as object).sort()) out[k] = (value as Record<string, unknown>)[k];
  return out;
}

/** Serialises like sigs.k8s.io/yaml: sorted keys, sequences not indented, literal blocks for multi-line text. */
export function goYaml(value: unknown, sortKeys = true): string {
  return stringifyYaml(value, {
    sortMapEntries: sortKeys,
    indentSeq: false,
    lineWidth: 0,
    blockQuote: 'literal',
    defaultStringType: 'PLAIN',
    defaultKeyType: 'PLAIN',
    aliasDuplicateObjects: false,
    nullStr: 'null',
  });
}

/** Removes `metadata.managedFields` (from each list item too) unless `--show-managed-fields`. */
export function stripManagedFields<T>(obj: T): T {
  if (obj === null || typeof obj !== 'object') return obj;
  const o = obj as Record<string, unknown>;
  let out = o;
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _drop, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map((i) => stripManagedFields(i)) };
  return out as T;
}

/** kubectl's name printer: `<kind>.<group>/<name>`, kind lower-cased; `<op>` appended when given. */
export function resourceName(obj: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = String(obj.kind ?? '').toLowerCase();
  const name = (obj.metadata as { name?: unknown } | undefined)?.name;
  return `${group ? `${kind}.${group}` : kind}/${typeof name === 'string' ? name : ''}`;
}
