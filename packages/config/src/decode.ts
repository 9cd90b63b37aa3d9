/**
 * Strict decoding of a configuration file (YAML or JSON, JSON being a subset of YAML), the way
 * Kubernetes decodes its configuration files with a strict serializer: a duplicate key is an
 * error (`duplicate field "kind"`), as is an unknown field (`unknown field "jwt[0].isuer"`, reported
 * by the schemas). Explicit nulls mean "not set", as in Go's JSON decoding.
 */
import { FieldError, FieldErrorType, omitValue } from '@plat/api-model';
import { composeYamlDocuments, yamlSyntaxMessage } from '@plat/api-model/yaml';
import { isMap, isPair, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';

/** Largest configuration file accepted, in bytes. */
export const maxConfigFileBytes = 4 * 1024 * 1024;

/**
 * An error found while decoding, before any field is validated: syntax, duplicate or unknown
 * fields, wrong JSON types. It prints as Kubernetes' strict decoder prints it (no `path: Type:`
 * prefix) while still carrying the path of the field for programmatic use.
 */
export class DecodeError extends FieldError {
  constructor(
    field: string,
    readonly message: string,
  ) {
    super(FieldErrorType.Invalid, field, omitValue, message);
  }

  override body(): string {
    return this.message;
  }

  override toString(): string {
    return this.message;
  }
}

export type DecodeResult = { ok: true; value: unknown } | { ok: false; errors: FieldError[] };

type Segment = string | number;

/** `jwt[0].issuer.url` from path segments. */
export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

function findDuplicateKeys(node: YamlNode | null | undefined, path: Segment[], errors: FieldError[], depth = 0): void {
  if (!node || depth > 200) return;
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const keyNode = item.key as YamlNode | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      if (seen.has(key)) errors.push(new DecodeError(formatPath([...path, key]), `duplicate field "${formatPath([...path, key])}"`));
      seen.add(key);
      findDuplicateKeys(item.value as YamlNode | null, [...path, key], errors, depth + 1);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findDuplicateKeys(item as YamlNode | null, [...path, i], errors, depth + 1));
  }
}

/** Removes map entries whose value is null: Go's decoder leaves such fields unset. */
function dropNulls(value: unknown, depth = 0): unknown {
  if (depth > 200) return value;
  if (Array.isArray(value)) return value.map((v) => dropNulls(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      out[k] = dropNulls(v, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * Deepest nesting accepted; real configuration files stay under ten levels. @plat/api-model's
 * YAML composer checks it (a linear pre-scan, then the syntax tree) before any value is built, as
 * for request bodies.
 */
export const maxNestingDepth = 100;

/**
 * Parses a file's text. Returns the plain value (undefined for an empty file) or decode errors.
 */
export function decodeConfigText(text: string): DecodeResult {
  if (Buffer.byteLength(text, 'utf8') > maxConfigFileBytes) {
    return { ok: false, errors: [new DecodeError('', `file is too large: more than ${maxConfigFileBytes} bytes`)] };
  }
  let docs: Document.Parsed[];
  try {
    // YAML 1.1 as Kubernetes' decoder (go-yaml v2) reads it: `yes`/`on` are booleans, `0755` octal,
    // timestamp-looking scalars stay strings.
    // Integers as numbers, as Go decodes them into the configuration's fields.
    docs = composeYamlDocuments(text, { maxDepth: maxNestingDepth, goYaml: true, intAsBigInt: false });
  } catch (error) {
    // Nesting beyond the bound (a YamlDecodeError), or anything the library throws, is a decode
    // error, never an exception for the caller.
    const message = (error as Error).message;
    return { ok: false, errors: [new DecodeError('', message.startsWith('yaml: ') ? message : `yaml: ${message}`)] };
  }
  const [doc, second] = docs;
  if (doc === undefined) return { ok: true, value: undefined };
  if (second !== undefined) {
    const message = yamlSyntaxMessage(text, { message: 'the file holds more than one YAML document', pos: [second.range[0], second.range[1]] });
    return { ok: false, errors: [new DecodeError('', message)] };
  }
  if (doc.errors.length > 0) {
    return { ok: false, errors: doc.errors.map((e) => new DecodeError('', yamlSyntaxMessage(text, e))) };
  }
  const errors: FieldError[] = [];
  findDuplicateKeys(doc.contents as YamlNode | null, [], errors);
  if (errors.length > 0) return { ok: false, errors };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [new DecodeError('', `yaml: ${(error as Error).message}`)] };
  }
  return { ok: true, value: value === null ? undefined : dropNulls(value) };
}
