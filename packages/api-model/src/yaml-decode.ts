/**
 * The one YAML decoder for data from the wire or from files (the `@plat/api-model/yaml` subpath,
 * so that users of the model alone do not load the YAML library). It turns one YAML document into
 * the value sigs.k8s.io/yaml's YAMLToJSON would give, with the same bounds as {@link decodeJson}:
 *
 * - nesting is bounded by {@link maxNestingDepth} before the library composes anything (its
 *   composer recurses per level and a few hundred levels exhaust the stack; V8 can then abort the
 *   whole process inside the RegExp compiler instead of throwing), and its CST parser is only fed
 *   text whose bracket and indentation nesting a linear pre-scan bounds (it is quadratic in depth);
 * - aliases are bounded twice: the library's alias count, and the size of the expanded value
 *   (a node budget proportional to the text), as go-yaml refuses `excessive aliasing`;
 * - integers keep their exact value as in decodeJson (number, bigint within int64, float64 or
 *   bigint beyond); `.inf` and `.nan` are refused, as JSON cannot carry them;
 * - the result is a plain tree (aliases expanded into copies), so no two paths share an object.
 */
import { Composer, Parser, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions, type Tags } from 'yaml';
import { goYamlNumberTag } from './go-yaml-numbers.js';
import { isInt64, maxNestingDepth } from './json-decode.js';

export type YamlDecodeErrorCode = 'syntax' | 'depth' | 'alias' | 'number';

/** A YAML text that cannot be decoded; `message` starts with `yaml: ` as go-yaml's errors do. */
export class YamlDecodeError extends Error {
  override readonly name = 'YamlDecodeError';
  constructor(
    readonly code: YamlDecodeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface DecodeYamlOptions {
  /** Deepest nesting accepted (default {@link maxNestingDepth}). */
  maxDepth?: number;
  /** Report repeated mapping keys (`line 3: key "a" already set in map`). */
  findDuplicates?: boolean;
  /** Integers beyond int64: float64 (default) or exact bigint, as in decodeJson. */
  beyondInt64?: 'float' | 'exact';
  /**
   * Read YAML 1.1 as go-yaml v2 (sigs.k8s.io/yaml, kubectl) does: `yes`/`on` booleans, `0755`
   * octal, but timestamps and base-60 numbers stay strings. Default: the library's YAML 1.2.
   */
  goYaml?: boolean;
}

export interface DecodedYaml {
  /** The document's value; null for an empty document. */
  value: unknown;
  /** Repeated keys as go-yaml's strict mode words them, one line each (only with findDuplicates). */
  duplicates: string[];
}

/** A bound on nesting the pre-scan can see, far above maxNestingDepth: only a guard for the parser. */
const preScanLimit = 10_000;

/**
 * Counts flow brackets and block indentation without parsing (brackets in quoted text count too,
 * which can only overcount): enough to keep absurd nesting away from the CST parser.
 */
function nestingBeyondPreScan(text: string): boolean {
  let flow = 0;
  let lineStart = true;
  let column = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      lineStart = true;
      column = 0;
      continue;
    }
    if (lineStart) {
      // Indentation and compact `- - -` / `? ` nesting at the start of a line.
      if (c === 0x20 || c === 0x09 || ((c === 0x2d || c === 0x3f) && text.charCodeAt(i + 1) === 0x20)) {
        if (++column > preScanLimit) return true;
        continue;
      }
      lineStart = false;
    }
    if (c === 0x5b || c === 0x7b) {
      if (++flow > preScanLimit) return true;
    } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--;
  }
  return false;
}

interface CstNode {
  type: string;
  value?: CstNode;
  items?: { key?: CstNode | null; value?: CstNode | null }[];
}

const collectionTypes = new Set(['block-map', 'block-seq', 'flow-collection']);

/** The deepest nesting of collections in the parsed documents, walked without recursion. */
function cstDepthExceeds(tokens: readonly CstNode[], maxDepth: number): boolean {
  const stack: [CstNode, number][] = tokens.map((t) => [t, 0]);
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node.type === 'document') {
      if (node.value) stack.push([node.value, depth]);
      continue;
    }
    if (!collectionTypes.has(node.type)) continue;
    const d = depth + 1;
    if (d > maxDepth) return true;
    for (const item of node.items ?? []) {
      if (item.key) stack.push([item.key, d]);
      if (item.value) stack.push([item.value, d]);
    }
  }
  return false;
}

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Copies the library's value into a plain tree without recursion: bigint integers back to numbers
 * where exact, non-finite floats refused, depth and the number of nodes bounded.
 */
function toPlainTree(root: unknown, opts: { maxDepth: number; budget: { left: number }; beyondInt64: 'float' | 'exact' }): unknown {
  const scalar = (v: unknown): unknown => {
    if (typeof v === 'bigint') {
      if (v >= -maxSafe && v <= maxSafe) return Number(v);
      if (isInt64(v) || opts.beyondInt64 === 'exact') return v;
      return Number(v);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw new YamlDecodeError('number', `json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
    }
    if (v instanceof Date) return v.toISOString();
    return v;
  };
  const holder: { v?: unknown } = {};
  const work: { from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; depth: number }[] = [
    { from: root, into: holder as Record<string, unknown>, key: 'v', depth: 0 },
  ];
  while (work.length) {
    const { from, into, key, depth } = work.pop()!;
    if (--opts.budget.left < 0) throw new YamlDecodeError('alias', 'yaml: document contains excessive aliasing');
    let out: unknown;
    if (from instanceof Map || (from !== null && typeof from === 'object' && !(from instanceof Date))) {
      if (depth + 1 > opts.maxDepth) throw new YamlDecodeError('depth', `yaml: exceeded max depth of ${opts.maxDepth}`);
      if (Array.isArray(from)) {
        const arr: unknown[] = new Array(from.length);
        from.forEach((v, i) => work.push({ from: v, into: arr, key: i, depth: depth + 1 }));
        out = arr;
      } else {
        const obj: Record<string, unknown> = {};
        const entries = from instanceof Map ? [...from.entries()] : Object.entries(from);
        for (const [k, v] of entries) {
          const name = String(k);
          // Placeholder keeps the key order; the worker fills it in.
          if (name === '__proto__') Object.defineProperty(obj, name, { value: null, enumerable: true, writable: true, configurable: true });
          else obj[name] = null;
          work.push({ from: v, into: obj, key: name, depth: depth + 1 });
        }
        out = obj;
      }
    } else out = scalar(from);
    (into as Record<string | number, unknown>)[key] = out;
  }
  return holder.v;
}

/** The first line of a yaml library error with its line, as go-yaml words syntax errors (`yaml: line 3: ...`). */
export function yamlSyntaxMessage(text: string, error: { message: string; pos: [number, number] }): string {
  const first = (error.message.split('\n')[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, '');
  // An error at the end of the text sits on its last line, as go-yaml counts (not the empty one after it).
  return `yaml: line ${lineOf(text, Math.min(error.pos[0], text.length - 1))}: ${first}`;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The mapping key written at `offset` (plain or quoted). */
function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset, offset + 4096);
  const quoted = /^(["'])((?:\\.|(?!\1).)*)\1/.exec(rest);
  if (quoted) return quoted[2]!;
  return (/^[^:\n]*/.exec(rest)?.[0] ?? '').trim();
}

const numberTags = new Set(['tag:yaml.org,2002:int', 'tag:yaml.org,2002:float']);

/**
 * go-yaml v2's reading of YAML 1.1: its booleans and nulls, numbers as go-yaml resolves them
 * (the library's int and float tags only for explicit `!!int`/`!!float`), no timestamps and no
 * base-60 numbers.
 */
const goYamlOptions: DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags: Tags) => [
    ...tags
      .filter((t) => typeof t === 'string' || (t.format !== 'TIME' && t.tag !== 'tag:yaml.org,2002:timestamp'))
      .map((t) => (typeof t !== 'string' && numberTags.has(t.tag) ? { ...t, default: false } : t)),
    goYamlNumberTag,
  ],
};

/** Decodes one YAML document; throws {@link YamlDecodeError}. */
export function decodeYaml(text: string, opts: DecodeYamlOptions = {}): DecodedYaml {
  const docs = decodeDocuments(text, opts, 'one');
  return docs[0] ?? { value: null, duplicates: [] };
}

/** Decodes every document of a YAML stream (`---` separated), in order; throws {@link YamlDecodeError}. */
export function decodeYamlDocuments(text: string, opts: DecodeYamlOptions = {}): DecodedYaml[] {
  return decodeDocuments(text, opts, 'all');
}

/** How {@link composeYamlDocuments} reads a text. */
export interface ComposeYamlOptions {
  /** Deepest nesting accepted (default {@link maxNestingDepth}). */
  maxDepth?: number;
  /** Read YAML 1.1 as go-yaml v2 does (see {@link DecodeYamlOptions.goYaml}). */
  goYaml?: boolean;
  /** Report repeated mapping keys as DUPLICATE_KEY errors of the documents. */
  uniqueKeys?: boolean;
  /** Integers as bigint, exact (default), or as numbers (float64 beyond 2^53, as Go's). */
  intAsBigInt?: boolean;
}

/**
 * The yaml library's documents of a text, composed only after the nesting bounds hold: for
 * callers that need the syntax tree (configuration files report duplicate keys by field path).
 * Syntax problems are left in each document's `errors` ({@link yamlSyntaxMessage} words them);
 * throws {@link YamlDecodeError} (`depth`) for nesting beyond `maxDepth`.
 */
export function composeYamlDocuments(text: string, opts: ComposeYamlOptions = {}): Document.Parsed[] {
  return composeBounded(text, opts.maxDepth ?? maxNestingDepth)({ uniqueKeys: opts.uniqueKeys ?? false, goYaml: opts.goYaml ?? false, intAsBigInt: opts.intAsBigInt ?? true });
}

type ComposeWith = (opts: { uniqueKeys: boolean; goYaml: boolean; intAsBigInt: boolean }) => Document.Parsed[];

function composeBounded(text: string, maxDepth: number): ComposeWith {
  if (nestingBeyondPreScan(text)) throw new YamlDecodeError('depth', `yaml: exceeded max depth of ${maxDepth}`);
  const tokens = [...new Parser().parse(text)] as unknown as CstNode[];
  if (cstDepthExceeds(tokens, maxDepth)) throw new YamlDecodeError('depth', `yaml: exceeded max depth of ${maxDepth}`);
  return ({ uniqueKeys, goYaml, intAsBigInt }) => {
    const options: DocumentOptions & SchemaOptions & ParseOptions = { uniqueKeys, intAsBigInt, prettyErrors: false, ...(goYaml ? goYamlOptions : {}) };
    return [...new Composer(options).compose(tokens as never, true, text.length)] as Document.Parsed[];
  };
}

function decodeDocuments(text: string, opts: DecodeYamlOptions, count: 'one' | 'all'): DecodedYaml[] {
  const maxDepth = opts.maxDepth ?? maxNestingDepth;
  const composeWith = composeBounded(text, maxDepth);
  const compose = (uniqueKeys: boolean) => {
    const docs = composeWith({ uniqueKeys, goYaml: opts.goYaml ?? false, intAsBigInt: true });
    if (count === 'one' && docs.length > 1) throw new YamlDecodeError('syntax', 'yaml: the body holds more than one YAML document');
    return docs;
  };
  // The node budget is shared by all documents: their expansion together is bounded by the text.
  const budget = { left: 10 * text.length + 1000 };
  const out = compose(false).map((doc): DecodedYaml => {
    const firstError = doc.errors[0];
    if (firstError) throw new YamlDecodeError('syntax', yamlSyntaxMessage(text, firstError));
    let raw: unknown;
    try {
      raw = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      const message = (err as Error).message;
      if (/alias/i.test(message) && /excessive/i.test(message)) throw new YamlDecodeError('alias', 'yaml: document contains excessive aliasing');
      throw new YamlDecodeError('syntax', `yaml: ${message.split('\n')[0]}`);
    }
    const value = toPlainTree(raw, { maxDepth, budget, beyondInt64: opts.beyondInt64 ?? 'float' });
    return { value: value ?? null, duplicates: [] };
  });
  if (opts.findDuplicates) {
    compose(true).forEach((doc, i) => {
      const lines = doc.errors
        .filter((e) => e.code === 'DUPLICATE_KEY')
        .map((e) => `  line ${lineOf(text, e.pos[0])}: key ${JSON.stringify(keyAt(text, e.pos[0]))} already set in map`);
      if (lines.length && out[i]) out[i]!.duplicates.push(`yaml: unmarshal errors:\n${lines.join('\n')}`);
    });
  }
  return out;
}
