import { ClientError } from './client-error.js';
import { goJson } from './object-printer.js';

/**
 * kubectl's JSONPath dialect (k8s.io/client-go/util/jsonpath): text with `{...}` actions holding
 * field paths (`.a.b`, `['x.y']`, `..name`, `*`), array access (`[0]`, `[-1]`, `[1:3:1]`, `[*]`,
 * unions `[0,2]` / `['a','b']`), filters `[?(@.x=="y")]`, `{range ...}...{end}` and literals.
 */
type Segment =
  | { t: 'field'; names: string[] }
  | { t: 'recursive' }
  | { t: 'wildcard' }
  | { t: 'index'; start?: number; end?: number; step?: number; single: boolean }
  | { t: 'union'; indices: number[] }
  | { t: 'filter'; left: Segment[]; op?: string; right?: Operand };

type Operand = { t: 'path'; path: Segment[] } | { t: 'literal'; value: unknown };

type Node =
  | { t: 'text'; text: string }
  | { t: 'paths'; paths: Segment[][] }
  | { t: 'range'; path: Segment[]; body: Node[] };

function parseError(template: string, msg: string): never {
  throw new ClientError('TemplateParse', `error parsing jsonpath ${template}, ${msg}`);
}

class PathParser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly template: string,
  ) {}

  done(): boolean {
    return this.i >= this.s.length;
  }

  parsePath(stopAt: string): Segment[] {
    const segs: Segment[] = [];
    while (this.i < this.s.length && !stopAt.includes(this.s[this.i])) {
      const c = this.s[this.i];
      if (c === '@' || c === '$') {
        this.i++;
      } else if (c === '.') {
        if (this.s[this.i + 1] === '.') {
          this.i += 2;
          segs.push({ t: 'recursive' });
          const m = /^[^.[\]{}(),=!<>\s@$*]+/.exec(this.s.slice(this.i));
          if (m) {
            this.i += m[0].length;
            segs.push({ t: 'field', names: [m[0]] });
          }
          continue;
        }
        this.i++;
        if (this.s[this.i] === '*') {
          this.i++;
          segs.push({ t: 'wildcard' });
          continue;
        }
        const m = /^[^.[\]{}(),=!<>\s@$]*/.exec(this.s.slice(this.i))!;
        this.i += m[0].length;
        if (m[0]) segs.push({ t: 'field', names: [m[0]] });
      } else if (c === '[') {
        segs.push(this.parseBracket());
      } else if (c === '*') {
        this.i++;
        segs.push({ t: 'wildcard' });
      } else if (/[A-Za-z_]/.test(c) && segs.length === 0) {
        const m = /^[^.[\]{}(),=!<>\s]*/.exec(this.s.slice(this.i))!;
        this.i += m[0].length;
        segs.push({ t: 'field', names: [m[0]] });
      } else {
        parseError(this.template, `unrecognized character in action: U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} '${c}'`);
      }
    }
    return segs;
  }

  private parseBracket(): Segment {
    const close = this.findClose(this.i);
    const inner = this.s.slice(this.i + 1, close).trim();
    this.i = close + 1;
    if (inner === '*') return { t: 'wildcard' };
    if (inner.startsWith('?')) return this.parseFilter(inner);
    if (/^['"]/.test(inner)) {
      const names: string[] = [];
      const re = /\s*(['"])((?:\\.|(?!\1).)*)\1\s*(,|$)/gy;
      let m: RegExpExecArray | null;
      while (re.lastIndex < inner.length && (m = re.exec(inner))) names.push(m[2].replace(/\\(.)/g, '$1'));
      if (!names.length) parseError(this.template, `invalid array index ${inner}`);
      return { t: 'field', names };
    }
    if (inner.includes(',')) {
      const indices = inner.split(',').map((p) => {
        if (!/^\s*-?\d+\s*$/.test(p)) parseError(this.template, `invalid array index ${inner}`);
        return Number(p);
      });
      return { t: 'union', indices };
    }
    const parts = inner.split(':');
    if (parts.length > 3 || parts.some((p) => p.trim() !== '' && !/^\s*-?\d+\s*$/.test(p))) {
      parseError(this.template, `invalid array index ${inner}`);
    }
    const num = (p: string | undefined) => (p === undefined || p.trim() === '' ? undefined : Number(p));
    if (parts.length === 1) {
      if (inner === '') parseError(this.template, 'invalid array index');
      return { t: 'index', start: Number(inner), single: true };
    }
    return { t: 'index', start: num(parts[0]), end: num(parts[1]), step: num(parts[2]), single: false };
  }

  private findClose(open: number): number {
    let depth = 0;
    let quote = '';
    for (let j = open; j < this.s.length; j++) {
      const c = this.s[j];
      if (quote) {
        if (c === '\\') j++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return j;
    }
    return parseError(this.template, 'unterminated array');
  }

  private parseFilter(inner: string): Segment {
    const m = /^\?\s*\((.*)\)\s*$/s.exec(inner);
    if (!m) parseError(this.template, `unclosed filter ${inner}`);
    const expr = m[1].trim();
    const opm = /\s*(==|!=|<=|>=|<|>|=~)\s*/.exec(expr);
    const leftText = opm ? expr.slice(0, opm.index) : expr;
    const left = new PathParser(leftText, this.template).parsePath('');
    if (!opm) return { t: 'filter', left };
    const rightText = expr.slice(opm.index + opm[0].length).trim();
    let right: Operand;
    if (/^(['"]).*\1$/s.test(rightText)) right = { t: 'literal', value: rightText.slice(1, -1) };
    else if (/^-?\d+(\.\d+)?$/.test(rightText)) right = { t: 'literal', value: Number(rightText) };
    else if (rightText === 'true' || rightText === 'false') right = { t: 'literal', value: rightText === 'true' };
    else right = { t: 'path', path: new PathParser(rightText, this.template).parsePath('') };
    return { t: 'filter', left, op: opm[1], right };
  }
}

function unquote(lit: string): string {
  return lit.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
}

/** Parses a template into nodes; `{range}` bodies nest until the matching `{end}`. */
function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      stack[stack.length - 1].push({ t: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) stack[stack.length - 1].push({ t: 'text', text: template.slice(i, open) });
    let close = -1;
    let quote = '';
    for (let j = open + 1; j < template.length; j++) {
      const c = template[j];
      if (quote) {
        if (c === '\\') j++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '}') {
        close = j;
        break;
      }
    }
    if (close < 0) throw new ClientError('TemplateParse', `error parsing jsonpath ${template}, unclosed action`);
    const action = template.slice(open + 1, close).trim();
    i = close + 1;
    const cur = stack[stack.length - 1];
    if (action === 'end') {
      if (stack.length === 1) parseError(template, 'not in range, nothing to end');
      stack.pop();
    } else if (action.startsWith('range')) {
      const node: Node = { t: 'range', path: new PathParser(action.slice(5).trim(), template).parsePath(''), body: [] };
      cur.push(node);
      stack.push(node.body);
    } else if (/^(['"]).*\1$/s.test(action)) {
      cur.push({ t: 'text', text: unquote(action) });
    } else {
      cur.push({ t: 'paths', paths: [new PathParser(action, template).parsePath('')] });
    }
  }
  if (stack.length > 1) parseError(template, 'unexpected EOF');
  return root;
}

class Evaluator {
  constructor(private readonly allowMissing: boolean) {}

  evalPath(values: unknown[], path: Segment[]): unknown[] {
    let cur = values;
    for (const seg of path) cur = this.step(cur, seg);
    return cur;
  }

  private step(values: unknown[], seg: Segment): unknown[] {
    const out: unknown[] = [];
    for (const v of values) {
      switch (seg.t) {
        case 'field':
          for (const name of seg.names) {
            if (v !== null && typeof v === 'object' && !Array.isArray(v) && name in (v as object)) out.push((v as Record<string, unknown>)[name]);
            else if (!this.allowMissing) throw new ClientError('TemplateExecute', `${name} is not found`);
          }
          break;
        case 'wildcard':
          if (Array.isArray(v)) out.push(...v);
          else if (v !== null && typeof v === 'object') for (const k of Object.keys(v).sort()) out.push((v as Record<string, unknown>)[k]);
          break;
        case 'recursive':
          this.descend(v, out);
          break;
        case 'index': {
          if (!Array.isArray(v)) {
            if (!this.allowMissing) throw new ClientError('TemplateExecute', `object is not a slice`);
            break;
          }
          const len = v.length;
          if (seg.single) {
            const idx = seg.start! < 0 ? len + seg.start! : seg.start!;
            if (idx < 0 || idx >= len) {
              if (this.allowMissing) break;
              throw new ClientError('TemplateExecute', `array index out of bounds: index ${seg.start}, length ${len}`);
            }
            out.push(v[idx]);
            break;
          }
          const norm = (n: number | undefined, d: number) => (n === undefined ? d : n < 0 ? Math.max(0, len + n) : Math.min(n, len));
          const start = norm(seg.start, 0);
          const end = norm(seg.end, len);
          const step = seg.step ?? 1;
          if (step <= 0) throw new ClientError('TemplateExecute', `step must be > 0`);
          for (let k = start; k < end; k += step) out.push(v[k]);
          break;
        }
        case 'union':
          if (Array.isArray(v)) for (const n of seg.indices) if (v[n < 0 ? v.length + n : n] !== undefined) out.push(v[n < 0 ? v.length + n : n]);
          break;
        case 'filter': {
          const items = Array.isArray(v) ? v : [];
          const lenient = new Evaluator(true);
          for (const item of items) {
            const lefts = lenient.evalPath([item], seg.left);
            if (!seg.op) {
              if (lefts.length) out.push(item);
              continue;
            }
            const rights = seg.right!.t === 'literal' ? [seg.right!.value] : lenient.evalPath([item], seg.right!.path);
            if (lefts.some((l) => rights.some((r) => compare(l, seg.op!, r)))) out.push(item);
          }
          break;
        }
      }
    }
    return out;
  }

  private descend(v: unknown, out: unknown[]): void {
    out.push(v);
    if (Array.isArray(v)) for (const x of v) this.descend(x, out);
    else if (v !== null && typeof v === 'object') for (const k of Object.keys(v).sort()) this.descend((v as Record<string, unknown>)[k], out);
  }
}

function compare(l: unknown, op: string, r: unknown): boolean {
  if (op === '=~') return typeof l === 'string' && typeof r === 'string' && new RegExp(r).test(l);
  if (typeof l === 'number' && typeof r === 'string' && r !== '' && !Number.isNaN(Number(r))) r = Number(r);
  switch (op) {
    case '==': return l === r;
    case '!=': return l !== r;
    case '<': return (l as number) < (r as number);
    case '>': return (l as number) > (r as number);
    case '<=': return (l as number) <= (r as number);
    case '>=': return (l as number) >= (r as number);
    default: return false;
  }
}

/** How a found value prints: strings bare, maps and lists as compact JSON, as kubectl does. */
function printValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return goJson(v, 0);
  return String(v);
}

export interface JsonPathOptions {
  allowMissingKeys?: boolean;
  /** `jsonpath-as-json`: print every found value as one indented JSON array. */
  asJson?: boolean;
}

/** A compiled template: parse once, execute per object. */
export class JsonPath {
  private readonly nodes: Node[];
  private readonly template: string;
  private readonly options: JsonPathOptions;
  private data: unknown;

  constructor(template: string, options: JsonPathOptions = {}) {
    this.template = template;
    this.options = options;
    this.nodes = parseTemplate(template);
  }

  execute(data: unknown): string {
    const ev = new Evaluator(this.options.allowMissingKeys ?? true);
    const found: unknown[] = [];
    let text = '';
    this.data = data;
    const run = (nodes: Node[], cur: unknown) => {
      for (const n of nodes) {
        if (n.t === 'text') text += n.text;
        else if (n.t === 'range') {
          for (const item of this.wrap(() => ev.evalPath([cur], n.path))) {
            const inner = Array.isArray(item) ? item : [item];
            for (const x of inner) run(n.body, x);
          }
        } else {
          const results: unknown[] = [];
          for (const p of n.paths) results.push(...this.wrap(() => ev.evalPath([cur], p)));
          found.push(...results);
          text += results.map(printValue).join(' ');
        }
      }
    };
    run(this.nodes, data);
    return this.options.asJson ? `${goJson(found, 4)}\n` : text;
  }

  private wrap(fn: () => unknown[]): unknown[] {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ClientError && err.code === 'TemplateExecute') {
        throw new ClientError('TemplateExecute', `error executing jsonpath ${JSON.stringify(this.template)}: Error executing template: ${err.message}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t${this.template}\n\tobject given to jsonpath engine was:\n\t\t${goJson(this.data, 0)}\n`);
      }
      throw err;
    }
  }
}
