import { goQuote } from '@plat/api-model';
import { ClientError } from './client-error.js';
import { goValue } from './go-template.js';
import { goJson } from './object-printer.js';

/**
 * kubectl's JSONPath templates (k8s.io/client-go/util/jsonpath), written from its parser and
 * evaluator so that every template reads as kubectl reads it: `{.a.b}`, escaped dots in keys
 * (`{.metadata.labels.app\.kubernetes\.io/name}`), `['a']` (a path, not a key: `['a.b']` is
 * `.a.b`), `[n]`, `[a:b:step]`, `[*]`, unions `[0,2]`, `..name`, `*`, filters
 * `[?(@.x=="y")]`, `{range ...}{end}` and quoted literals. Values of the object are typed as
 * kubectl's unstructured decoding types them: integers int64, other numbers float64.
 */

// ---------------------------------------------------------------------------------------------
// Nodes (parse tree)

type Node =
  | { t: 'list'; nodes: Node[] }
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'identifier'; name: string }
  | { t: 'array'; params: ArrayParam[] }
  | { t: 'filter'; left: ListNode; right: ListNode; operator: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'union'; nodes: ListNode[] };
type ListNode = Extract<Node, { t: 'list' }>;
interface ArrayParam {
  value: number;
  known: boolean;
  derived: boolean;
}

const list = (): ListNode => ({ t: 'list', nodes: [] });

// ---------------------------------------------------------------------------------------------
// Parser (client-go util/jsonpath/parser.go)

const MAX_NESTING = 1000;

/** A template that does not parse or execute; private: JsonPath reports it as a ClientError (TemplateParse, TemplateExecute). */
class JsonPathError extends Error {}
const dictKey = /^'([^']*)'$/;
const sliceOperator = /^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$/;

class Parser {
  private input = '';
  private pos = 0;
  private start = 0;
  private width = 0;
  root: ListNode = list();

  constructor(private readonly depth = 0) {
    if (depth > MAX_NESTING) throw new JsonPathError('nested too deeply');
  }

  parse(text: string): ListNode {
    this.input = text;
    this.root = list();
    this.pos = 0;
    this.parseText(this.root);
    return this.root;
  }

  /** parseAction: the nodes of `{text}`. */
  private action(text: string): ListNode {
    const root = new Parser(this.depth + 1).parse(`{${text}}`);
    return root.nodes[0] as ListNode;
  }

  private consume(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }

  private next(): string | undefined {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return undefined;
    }
    const c = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = c.length;
    this.pos += this.width;
    return c;
  }

  private peek(): string | undefined {
    const c = this.next();
    this.backup();
    return c;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private parseText(cur: ListNode): void {
    // Iterative: text and actions alternate until the end of the input.
    for (;;) {
      const open = this.input.indexOf('{', this.pos);
      if (open < 0) {
        this.pos = this.input.length;
        if (this.pos > this.start) cur.nodes.push({ t: 'text', text: this.consume() });
        return;
      }
      this.pos = open;
      if (this.pos > this.start) cur.nodes.push({ t: 'text', text: this.consume() });
      this.pos += 1;
      this.consume();
      const node = list();
      cur.nodes.push(node);
      this.parseInsideAction(node);
      cur = this.root;
    }
  }

  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consume();
        return;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === undefined || r === '\r' || r === '\n') throw new JsonPathError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.consume();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || /^\p{Nd}$/u.test(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new JsonPathError(`unrecognized character in action: ${goRune(r)}`);
    }
  }

  private parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === 'true' || value === 'false') cur.nodes.push({ t: 'bool', value: value === 'true' });
    else cur.nodes.push({ t: 'identifier', name: value });
  }

  private parseRecursive(cur: ListNode): void {
    if (cur.nodes.at(-1)?.t === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    cur.nodes.push({ t: 'recursive' });
    const r = this.peek();
    if (r !== undefined && isAlphaNumeric(r)) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const r = this.peek();
    if (r === '+' || r === '-') this.next();
    for (;;) {
      const c = this.next();
      if (c !== '.' && !(c !== undefined && /^\p{Nd}$/u.test(c))) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?\d+$/.test(value)) cur.nodes.push({ t: 'int', value: Number(value) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) cur.nodes.push({ t: 'float', value: Number(value) });
    else throw new JsonPathError(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const c = this.next();
      if (c === undefined || c === '\n') throw new JsonPathError('unterminated array');
      if (c === ']') break;
    }
    let text = this.consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ t: 'union', nodes: parts.map((p) => this.action(`[${p.trim()}]`)) });
      return;
    }
    const key = dictKey.exec(text);
    if (key) {
      cur.nodes.push(...this.action(`.${key[1]}`).nodes);
      return;
    }
    const m = sliceOperator.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const params: ArrayParam[] = [];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') params.push({ value: 0, known: false, derived: false });
        else {
          if (!/^[+-]?\d+$/.test(v)) throw new JsonPathError(`array index ${v} is not a number`);
          params.push({ value: Number(v), known: true, derived: false });
        }
      } else if (i === 1) params.push({ value: params[0].value + 1, known: true, derived: true });
      else params.push({ value: 0, known: false, derived: false });
    }
    cur.nodes.push({ t: 'array', params });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === undefined || r === '\n') throw new JsonPathError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JsonPathError('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(text);
    if (!m) cur.nodes.push({ t: 'filter', left: this.action(text), right: list(), operator: 'exists' });
    else cur.nodes.push({ t: 'filter', left: this.action(m[1]), right: this.action(m[3]), operator: m[2] });
  }

  private parseQuote(cur: ListNode, end: string): void {
    for (;;) {
      const c = this.next();
      if (c === undefined || c === '\n') throw new JsonPathError('unterminated quoted string');
      if (c === end && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consume();
    const text = unquoteExtend(value);
    if (text === undefined) throw new JsonPathError(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ t: 'text', text });
  }

  private parseField(cur: ListNode): void {
    this.consume();
    while (this.advance());
    const value = this.consume();
    cur.nodes.push(value === '*' ? { t: 'wildcard' } : { t: 'field', name: value.replaceAll('\\', '') });
  }

  /** Scans to the next terminator that is not escaped with a backslash. */
  private advance(): boolean {
    const r = this.next();
    if (r === '\\') this.next();
    else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }
}

function isTerminator(r: string | undefined): boolean {
  return r === undefined || ' \t\r\n.,[]$@{}'.includes(r);
}

function isAlphaNumeric(r: string): boolean {
  return r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
}

/** Go's `%#U`: `U+002C ','`. */
function goRune(r: string): string {
  const cp = r.codePointAt(0)!;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${r}'`;
}

/** UnquoteExtend: strconv.Unquote for single- or double-quoted text; undefined when invalid. */
function unquoteExtend(s: string): string | undefined {
  const quote = s[0];
  if (s.length < 2 || quote !== s.at(-1) || (quote !== '"' && quote !== "'")) return undefined;
  const body = s.slice(1, -1);
  let out = '';
  const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === quote) return undefined;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    if (e in simple) out += simple[e];
    else if (e === quote) out += e;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return undefined;
      out += e === 'x' ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      i += n;
    } else if (e >= '0' && e <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) return undefined;
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else return undefined;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Evaluator (client-go util/jsonpath/jsonpath.go)

/** A byte of a string reached by `*` or `..` (Go indexes strings by byte): prints as a number. */
class Byte {
  constructor(readonly value: number) {}
}

type Value = unknown;

/** Go's type name of a value of kubectl's unstructured objects. */
function goTypeName(v: Value): string {
  if (v instanceof Byte) return 'uint8';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

const isMap = (v: Value): v is Record<string, Value> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Byte);

/** The values inside a value, as reflection lists them for `*` and `..` (map values by key). */
function children(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (isMap(v)) return Object.keys(v).sort().map((k) => v[k]);
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')].map((b) => new Byte(b));
  return [];
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'uint';

function basicKind(v: Value): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof Byte) return 'uint';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  throw new JsonPathError('invalid type for comparison');
}

const raw = (v: Value): Value => (v instanceof Byte ? v.value : v);

/** The forked text/template comparisons: the kinds must match. */
function equal(a: Value, b: Value): boolean {
  if (basicKind(a) !== basicKind(b)) throw new JsonPathError('incompatible types for comparison');
  return raw(a) === raw(b);
}

function less(a: Value, b: Value): boolean {
  const k = basicKind(a);
  if (k !== basicKind(b)) throw new JsonPathError('incompatible types for comparison');
  if (k === 'bool') throw new JsonPathError('invalid type for comparison');
  return (raw(a) as number | string) < (raw(b) as number | string);
}

function compare(op: string, a: Value, b: Value): boolean {
  switch (op) {
    case '<':
      return less(a, b);
    case '>':
      return !(less(a, b) || equal(a, b));
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case '<=':
      return less(a, b) || equal(a, b);
    case '>=':
      return !less(a, b);
    default:
      throw new JsonPathError(`unrecognized filter operator ${op}`);
  }
}

class Evaluator {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEndNode?: Node;

  constructor(private readonly allowMissingKeys: boolean) {}

  /** FindResults: a list of result groups, one per action (ranges repeat their body). */
  findResults(data: Value, nodes: Node[]): Value[][] {
    const cur = [data];
    const full: Value[][] = [];
    for (let i = 0; i < nodes.length; i++) {
      const results = this.walk(cur, nodes[i]);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = nodes[i];
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        const body = nodes.slice(i + 1);
        if (results.length) for (const value of results) full.push(...this.findResults(value, body));
        else this.findResults(null, body);
        this.inRange--;
        for (let k = i + 1; k < nodes.length; k++) {
          if (nodes[k] === this.lastEndNode) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private walk(input: Value[], node: Node): Value[] {
    switch (node.t) {
      case 'list': {
        let cur = input;
        for (const n of node.nodes) cur = this.walk(cur, n);
        return cur;
      }
      case 'text':
        return [node.text];
      case 'field':
        return this.field(input, node.name);
      case 'array':
        return this.array(input, node.params);
      case 'filter':
        return this.filter(input, node);
      case 'int':
      case 'float':
      case 'bool':
        return input.map(() => node.value);
      case 'wildcard':
        return input.filter((v) => v !== null).flatMap(children);
      case 'recursive':
        return this.recursive(input);
      case 'union':
        return node.nodes.flatMap((n) => this.walk(input, n));
      case 'identifier':
        if (node.name === 'range') {
          this.beginRange++;
          return input;
        }
        if (node.name === 'end') {
          if (this.inRange > 0) this.endRange++;
          else throw new JsonPathError('not in range, nothing to end');
          return [];
        }
        throw new JsonPathError(`unrecognized identifier ${node.name}`);
    }
  }

  private field(input: Value[], name: string): Value[] {
    if (!input.length) return [];
    const results: Value[] = [];
    for (const v of input) if (isMap(v) && Object.prototype.hasOwnProperty.call(v, name)) results.push(v[name]);
    if (!results.length && !this.allowMissingKeys) throw new JsonPathError(`${name} is not found`);
    return results;
  }

  private array(input: Value[], node: ArrayParam[]): Value[] {
    const result: Value[] = [];
    for (const value of input) {
      if (value === null) continue;
      if (!Array.isArray(value)) throw new JsonPathError(`${goTypeName(value)} is not array or slice`);
      const params = node.map((p) => ({ ...p }));
      const len = value.length;
      if (!params[0].known) params[0].value = 0;
      if (params[0].value < 0) params[0].value += len;
      if (!params[1].known) params[1].value = len;
      if (params[1].value < 0 || (params[1].value === 0 && params[1].derived)) params[1].value += len;
      if (params[1].value === params[0].value) return result;
      if (params[0].value >= len || params[0].value < 0) throw new JsonPathError(`array index out of bounds: index ${params[0].value}, length ${len}`);
      if (params[1].value > len || params[1].value < 0) throw new JsonPathError(`array index out of bounds: index ${params[1].value - 1}, length ${len}`);
      if (params[0].value > params[1].value) throw new JsonPathError(`starting index ${params[0].value} is greater than ending index ${params[1].value}`);
      const slice = value.slice(params[0].value, params[1].value);
      let step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) throw new JsonPathError('step must be > 0');
        step = params[2].value;
      }
      for (let i = 0; i < slice.length; i += step) result.push(slice[i]);
    }
    return result;
  }

  private filter(input: Value[], node: Extract<Node, { t: 'filter' }>): Value[] {
    const results: Value[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) throw new JsonPathError(`${goValue(value)} is not array or slice and cannot be filtered`);
      for (const item of value) {
        let lefts: Value[] = [];
        let leftError: unknown;
        try {
          lefts = this.walk([item], node.left);
        } catch (err) {
          leftError = err;
        }
        if (node.operator === 'exists') {
          if (lefts.length) results.push(item);
          continue;
        }
        if (leftError) throw leftError;
        if (!lefts.length) continue;
        if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time');
        const rights = this.walk([item], node.right);
        if (!rights.length) continue;
        if (rights.length > 1) throw new JsonPathError('can only compare one element at a time');
        if (compare(node.operator, lefts[0], rights[0])) results.push(item);
      }
    }
    return results;
  }

  /** `..`: every value under the input, depth first, each container before what it holds. */
  private recursive(input: Value[]): Value[] {
    const result: Value[] = [];
    const stack: Value[][] = [input.slice().reverse()];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (!top.length) {
        stack.pop();
        continue;
      }
      const value = top.pop();
      if (value === null) continue;
      const inner = children(value);
      if (!inner.length) continue;
      result.push(value);
      stack.push(inner.slice().reverse());
    }
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// Printing

/** PrintResults: maps and lists as compact JSON, other values as Go prints them, a space between. */
function printResults(results: Value[], outputJson: boolean): string {
  if (outputJson) return `${goJson(results.map(raw), 4)}\n`;
  return results
    .map((r) => {
      if (r !== null && typeof r === 'object' && !(r instanceof Byte)) return goJson(r, 0);
      if (r === null) return 'null';
      if (r instanceof Byte) return String(r.value);
      return goValue(r);
    })
    .join(' ');
}

/** Go's `%#v` of a decoded object, as kubectl shows the object a template failed on. */
export function goSharpValue(v: Value): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return goValue(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpValue).join(', ')}}`;
  const o = v as Record<string, unknown>;
  return `map[string]interface {}{${Object.keys(o)
    .sort()
    .map((k) => `${goQuote(k)}:${goSharpValue(o[k])}`)
    .join(', ')}}`;
}

export interface JsonPathOptions {
  allowMissingKeys?: boolean;
  /** `jsonpath-as-json`: each result group printed as an indented JSON array. */
  asJson?: boolean;
}

/** A compiled template: parse once, execute per object. */
export class JsonPath {
  private readonly root: ListNode;

  constructor(
    private readonly template: string,
    private readonly options: JsonPathOptions = {},
  ) {
    try {
      this.root = new Parser().parse(template);
    } catch (err) {
      throw new ClientError('TemplateParse', `error parsing jsonpath ${template}, ${(err as Error).message}`);
    }
  }

  execute(data: unknown): string {
    let groups: Value[][];
    try {
      groups = new Evaluator(this.options.allowMissingKeys ?? true).findResults(data, this.root.nodes);
    } catch (err) {
      throw new ClientError(
        'TemplateExecute',
        `error executing jsonpath ${goQuote(this.template)}: Error executing template: ${(err as Error).message}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t${this.template}\n\tobject given to jsonpath engine was:\n\t\t${goSharpValue(data)}\n\n\n`,
      );
    }
    return groups.map((g) => printResults(g, this.options.asJson ?? false)).join('');
  }
}
