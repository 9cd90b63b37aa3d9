import { encodeJson } from '@plat/api-model/json';
import { resolveGoYamlNumber } from '@plat/api-model/yaml';
import { Document, Scalar, visit } from 'yaml';

/**
 * Serialises like Go's encoding/json (what kubectl's printers use): map keys sorted, `<`, `>`
 * and `&` as \u escapes, U+2028/U+2029 escaped, `indent` spaces per level.
 */
export function goJson(value: unknown, indent = 4, sortKeys = true): string {
  const text = encodeJson(sortKeys ? sortedCopy(value) : value, indent);
  return (text ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The value with object keys sorted (Go's map order); decoded values are bounded in depth. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  const plain = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) return sortedCopy(plain);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(plain).sort()) out[k] = sortedCopy((plain as Record<string, unknown>)[k]);
  return out;
}

/**
 * Plain strings go-yaml v2 would read back as something else (YAML 1.1 booleans, nulls, the
 * merge key, numbers as its resolver reads them, base-60 numbers, timestamps): it writes them
 * double-quoted (encode.go: a string is plain only when `resolve` gives it back as a string).
 */
const yaml11Implicit = [
  /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(~|null|Null|NULL|<<|)$/,
  /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/,
  /^\d{4}-\d\d?-\d\d?(([Tt]|[ \t]+)\d\d?:\d\d:\d\d(\.\d*)?([ \t]*(Z|[-+]\d\d?(:\d\d)?))?)?$/,
];

function needsDoubleQuotes(s: string): boolean {
  if (/^[-+0-9.]/.test(s) && typeof resolveGoYamlNumber(s) !== 'string') return true;
  return yaml11Implicit.some((re) => re.test(s)) || /[\x00-\x08\x0b-\x1f\x7f\t]/.test(s);
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** go-yaml v2's key order: runes compared one by one, runs of digits compared as numbers (k2 < k10). */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.length < br.length;
}

function keyText(k: unknown): string {
  return String(k instanceof Scalar ? k.value : k);
}

/**
 * Serialises like sigs.k8s.io/yaml (go-yaml v2): sorted keys, sequences not indented, literal
 * blocks for multi-line text, single quotes where YAML syntax needs quoting and double quotes for
 * strings that would otherwise read back as another type.
 */
export function goYaml(value: unknown, sortKeys = true): string {
  const doc = new Document(value, {
    sortMapEntries: sortKeys
      ? (a, b) => {
          const x = keyText(a.key);
          const y = keyText(b.key);
          return goYamlKeyLess(x, y) ? -1 : goYamlKeyLess(y, x) ? 1 : 0;
        }
      : false,
    aliasDuplicateObjects: false,
  });
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value !== 'string') return;
      if (needsDoubleQuotes(node.value)) node.type = Scalar.QUOTE_DOUBLE;
      else if (node.value.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
    },
  });
  return doc.toString({
    indentSeq: false,
    lineWidth: 0,
    singleQuote: true,
    blockQuote: 'literal',
    defaultStringType: 'PLAIN',
    defaultKeyType: 'PLAIN',
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

/** kubectl's name printer: `<kind>.<group>/<name>`, kind lower-cased, `<unknown>` for a missing name. */
export function resourceName(obj: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = String(obj.kind ?? '').toLowerCase();
  const name = (obj.metadata as { name?: unknown } | undefined)?.name;
  return `${group ? `${kind}.${group}` : kind}/${typeof name === 'string' && name ? name : '<unknown>'}`;
}
