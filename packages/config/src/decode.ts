/**
 * Strict decoding of a configuration file (YAML or JSON, JSON being a subset of YAML), the way
 * Kubernetes decodes its configuration files with a strict serializer: a duplicate key is an
 * error (`duplicate field "kind"`), as is an unknown field (`unknown field "jwt[0].isuer"`, reported
 * by the schemas). Explicit nulls mean "not set", as in Go's JSON decoding.
 */
import { FieldError, FieldErrorType, omitValue } from '@plat/api-model';
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';

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

/** Deepest nesting accepted; real configuration files stay under ten levels. */
export const maxNestingDepth = 100;

/**
 * A cheap pre-scan for nesting the YAML parser would recurse into: flow brackets (quotes are
 * ignored, which can only overcount), block indentation and compact `- - -` sequences. The
 * parser recurses per level, and thousands of levels exhaust the stack, which in V8 can abort the
 * whole process (a fatal error inside the RegExp compiler) instead of throwing.
 */
function nestingTooDeep(text: string): boolean {
  let depth = 0;
  let lineStart = true;
  let indent = 0;
  let dashes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      lineStart = true;
      indent = 0;
      dashes = 0;
      continue;
    }
    if (lineStart) {
      if (c === 0x20 || c === 0x09) {
        if (++indent > maxNestingDepth * 10) return true;
        continue;
      }
      if (c === 0x2d && (text.charCodeAt(i + 1) === 0x20 || text.charCodeAt(i + 1) === 0x09)) {
        if (++dashes > maxNestingDepth) return true;
        i++;
        continue;
      }
      lineStart = false;
    }
    if (c === 0x5b || c === 0x7b) {
      if (++depth > maxNestingDepth) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

/** The first line of a yaml library message, with its position, in Go yaml's style. */
function syntaxMessage(error: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): string {
  const first = error.message.split('\n')[0] ?? error.message;
  const line = error.linePos?.[0]?.line;
  const text = first.replace(/ at line \d+, column \d+:?$/, '');
  return line ? `yaml: line ${line}: ${text}` : `yaml: ${text}`;
}

/**
 * Parses a file's text. Returns the plain value (undefined for an empty file) or decode errors.
 */
export function decodeConfigText(text: string): DecodeResult {
  if (Buffer.byteLength(text, 'utf8') > maxConfigFileBytes) {
    return { ok: false, errors: [new DecodeError('', `file is too large: more than ${maxConfigFileBytes} bytes`)] };
  }
  if (nestingTooDeep(text)) {
    return { ok: false, errors: [new DecodeError('', `yaml: nesting too deep: more than ${maxNestingDepth} levels`)] };
  }
  let doc: ReturnType<typeof parseDocument>;
  try {
    // YAML 1.1, as Kubernetes' decoder (go-yaml v2) reads it: `yes`/`on` are booleans, `0755` octal.
    // Like go-yaml v2 decoding into interface{}, timestamp-looking scalars stay strings.
    doc = parseDocument(text, {
      uniqueKeys: false,
      prettyErrors: true,
      strict: true,
      version: '1.1',
      customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
    });
  } catch (error) {
    // The parser reports problems as doc.errors; a throw (for example a stack overflow on absurd
    // nesting) is still a decode error, never an exception for the caller.
    return { ok: false, errors: [new DecodeError('', `yaml: ${(error as Error).message}`)] };
  }
  if (doc.errors.length > 0) {
    return { ok: false, errors: doc.errors.map((e) => new DecodeError('', syntaxMessage(e as Parameters<typeof syntaxMessage>[0]))) };
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
