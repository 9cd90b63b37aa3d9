import { ClientError } from './client-error.js';
import { goJson } from './object-printer.js';
import { goQuote } from '@plat/api-model';

/**
 * A subset of Go's text/template, enough for kubectl's `-o go-template`: text and actions with
 * trim markers, comments, fields and chains, variables (`$x :=`, `$x =`, `$`), pipelines,
 * parenthesised pipelines, `if/else if/else`, `range` (with `$i, $v :=` and `else`), `with/else`,
 * and the functions and, or, not, len, index, printf, print, println, eq, ne, lt, le, gt, ge,
 * base64decode.
 */
type Operand =
  | { t: 'field'; chain: string[]; pos: string; text: string }
  | { t: 'var'; name: string; chain: string[]; pos: string; text: string }
  | { t: 'dot' }
  | { t: 'lit'; value: unknown }
  | { t: 'ident'; name: string }
  | { t: 'sub'; pipe: Pipeline; chain: string[]; pos: string; text: string };

interface Command {
  ops: Operand[];
  pos: string;
  text: string;
}

interface Pipeline {
  decl: string[];
  assign: boolean;
  cmds: Command[];
}

type TNode =
  | { t: 'text'; text: string }
  | { t: 'action'; pipe: Pipeline }
  | { t: 'if' | 'with' | 'range'; pipe: Pipeline; list: TNode[]; elseList: TNode[] };

const noValue = Symbol('no value');

function parseErr(template: string, line: number, msg: string): never {
  throw new ClientError('TemplateParse', `error parsing template ${template}, template: output:${line}: ${msg}`);
}

interface Action {
  kind: 'text' | 'action';
  text: string;
  line: number;
  col: number;
}

function lex(template: string): Action[] {
  const out: Action[] = [];
  let i = 0;
  let trimNextText = false;
  while (i < template.length) {
    const open = template.indexOf('{{', i);
    let text = open < 0 ? template.slice(i) : template.slice(i, open);
    if (trimNextText) text = text.replace(/^\s+/, '');
    trimNextText = false;
    if (open < 0) {
      if (text) out.push({ kind: 'text', text, line: 0, col: 0 });
      break;
    }
    let start = open + 2;
    if (template[start] === '-' && /\s/.test(template[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      start += 2;
    }
    if (text) out.push({ kind: 'text', text, line: 0, col: 0 });
    let j = start;
    let quote = '';
    let close = -1;
    for (; j < template.length; j++) {
      const c = template[j];
      if (quote) {
        if (c === '\\' && quote !== '`') j++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === '`' || c === "'") quote = c;
      else if (template.startsWith('}}', j)) {
        close = j;
        break;
      }
    }
    const before = template.slice(0, open);
    const line = before.split('\n').length;
    if (close < 0) parseErr(template, line, 'unclosed action');
    let body = template.slice(start, close);
    if (/\s-$/.test(body)) {
      body = body.slice(0, -2);
      trimNextText = true;
    }
    const col = open - (before.lastIndexOf('\n') + 1) + 2;
    body = body.trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ kind: 'action', text: body, line, col });
    i = close + 2;
  }
  return out;
}

class ActionParser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly template: string,
    private readonly line: number,
    private readonly col: number,
  ) {}

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  private pos(): string {
    return `${this.line}:${this.col + this.i}`;
  }

  pipeline(endChar = ''): Pipeline {
    const pipe: Pipeline = { decl: [], assign: false, cmds: [] };
    this.ws();
    const declMatch = /^(\$\w*)\s*(?:,\s*(\$\w*)\s*)?(:=|=)(?!=)/.exec(this.s.slice(this.i));
    if (declMatch) {
      pipe.decl = [declMatch[1], declMatch[2]].filter((x): x is string => !!x);
      pipe.assign = declMatch[3] === '=';
      this.i += declMatch[0].length;
    }
    let cmd: Operand[] = [];
    let start = -1;
    let pos = '';
    const finish = () => {
      pipe.cmds.push({ ops: cmd, pos, text: this.s.slice(start, this.i).trim() });
      cmd = [];
      start = -1;
    };
    for (;;) {
      this.ws();
      if (this.i >= this.s.length || (endChar && this.s[this.i] === endChar)) break;
      if (this.s[this.i] === '|') {
        if (!cmd.length) parseErr(this.template, this.line, 'missing command');
        finish();
        this.i++;
        continue;
      }
      if (start < 0) {
        start = this.i;
        pos = this.pos();
      }
      cmd.push(this.operand());
    }
    if (cmd.length) finish();
    if (!pipe.cmds.length) parseErr(this.template, this.line, 'missing value for command');
    return pipe;
  }

  private chain(): string[] {
    const out: string[] = [];
    while (this.s[this.i] === '.' && /[A-Za-z_]/.test(this.s[this.i + 1] ?? '')) {
      const m = /^\.([A-Za-z_][\w]*)/.exec(this.s.slice(this.i))!;
      out.push(m[1]);
      this.i += m[0].length;
    }
    return out;
  }

  private operand(): Operand {
    const c = this.s[this.i];
    const rest = this.s.slice(this.i);
    const pos = this.pos();
    if (c === '.') {
      if (!/[A-Za-z_]/.test(this.s[this.i + 1] ?? '')) {
        this.i++;
        return { t: 'dot' };
      }
      const start = this.i;
      const chain = this.chain();
      return { t: 'field', chain, pos, text: this.s.slice(start, this.i) };
    }
    if (c === '$') {
      const m = /^\$\w*/.exec(rest)!;
      const start = this.i;
      this.i += m[0].length;
      const chain = this.chain();
      return { t: 'var', name: m[0], chain, pos, text: this.s.slice(start, this.i) };
    }
    if (c === '(') {
      const start = this.i;
      this.i++;
      const pipe = this.pipeline(')');
      if (this.s[this.i] !== ')') parseErr(this.template, this.line, 'unclosed left paren');
      this.i++;
      const chain = this.chain();
      return { t: 'sub', pipe, chain, pos, text: this.s.slice(start, this.i) };
    }
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(rest);
      if (!m) parseErr(this.template, this.line, 'unterminated quoted string');
      this.i += m[0].length;
      return { t: 'lit', value: JSON.parse(m[0].replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')) as string };
    }
    if (c === '`') {
      const end = this.s.indexOf('`', this.i + 1);
      if (end < 0) parseErr(this.template, this.line, 'unterminated raw quoted string');
      const value = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return { t: 'lit', value };
    }
    if (c === "'") {
      const m = /^'(\\.|[^'\\])'/.exec(rest);
      if (!m) parseErr(this.template, this.line, 'unterminated character constant');
      this.i += m[0].length;
      return { t: 'lit', value: (JSON.parse(`"${m[1]}"`) as string).codePointAt(0) };
    }
    const num = /^[-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)/.exec(rest);
    if (num) {
      this.i += num[0].length;
      return { t: 'lit', value: Number(num[0]) };
    }
    const id = /^[A-Za-z_]\w*/.exec(rest);
    if (id) {
      this.i += id[0].length;
      if (id[0] === 'true' || id[0] === 'false') return { t: 'lit', value: id[0] === 'true' };
      if (id[0] === 'nil') return { t: 'lit', value: null };
      if (!(id[0] in funcs)) parseErr(this.template, this.line, `function "${id[0]}" not defined`);
      return { t: 'ident', name: id[0] };
    }
    return parseErr(this.template, this.line, `unexpected "${c}" in command`);
  }
}

function parse(template: string): TNode[] {
  const actions = lex(template);
  let k = 0;
  const parseList = (stopAt: string[]): { list: TNode[]; stop: string; stopAction?: Action } => {
    const list: TNode[] = [];
    while (k < actions.length) {
      const a = actions[k++];
      if (a.kind === 'text') {
        list.push({ t: 'text', text: a.text });
        continue;
      }
      const word = /^\w+/.exec(a.text)?.[0] ?? '';
      if (word === 'end' || word === 'else') {
        if (!stopAt.includes(word)) parseErr(template, a.line, `unexpected {{${word}}}`);
        return { list, stop: word, stopAction: a };
      }
      if (word === 'if' || word === 'with' || word === 'range') {
        list.push(parseControl(word, new ActionParser(a.text.slice(word.length), template, a.line, a.col + word.length).pipeline(), a));
        continue;
      }
      if (word === 'define' || word === 'template' || word === 'block' || word === 'break' || word === 'continue') {
        parseErr(template, a.line, `{{${word}}} is not supported`);
      }
      list.push({ t: 'action', pipe: new ActionParser(a.text, template, a.line, a.col).pipeline() });
    }
    if (stopAt.length) parseErr(template, actions[actions.length - 1]?.line ?? 1, 'unexpected EOF');
    return { list, stop: '' };
  };
  const parseControl = (word: 'if' | 'with' | 'range', pipe: Pipeline, at: Action): TNode => {
    const body = parseList(['end', 'else']);
    let elseList: TNode[] = [];
    if (body.stop === 'else') {
      const rest = body.stopAction!.text.slice(4).trim();
      if (rest.startsWith('if ') || rest.startsWith('with ')) {
        const w = rest.startsWith('if ') ? 'if' : 'with';
        elseList = [parseControl(w, new ActionParser(rest.slice(w.length), template, at.line, at.col).pipeline(), at)];
      } else {
        const tail = parseList(['end']);
        elseList = tail.list;
      }
    }
    return { t: word, pipe, list: body.list, elseList };
  };
  return parseList([]).list;
}

type Value = unknown;

function truth(v: Value): boolean {
  if (v === noValue || v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go's `%v` for decoded JSON values. */
export function goValue(v: Value): string {
  if (v === noValue) return '<no value>';
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

function sprintf(format: string, args: Value[]): string {
  let ai = 0;
  return format.replace(/%([-+# 0]*)(\d+)?(?:\.(\d+))?([%vsdqftxXbeEgT])/g, (_m, flags: string, width: string | undefined, prec: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (ai >= args.length) return `%!${verb}(MISSING)`;
    const a = args[ai++];
    let s: string;
    switch (verb) {
      case 'd': s = typeof a === 'number' ? String(Math.trunc(a)) : `%!d(${typeof a}=${goValue(a)})`; break;
      case 'f': s = typeof a === 'number' ? a.toFixed(prec === undefined ? 6 : Number(prec)) : `%!f(${typeof a}=${goValue(a)})`; break;
      case 'e': case 'E': s = typeof a === 'number' ? a.toExponential(prec === undefined ? 6 : Number(prec)).replace(/e([+-])(\d)$/, 'e$10$2') : goValue(a); if (verb === 'E') s = s.toUpperCase(); break;
      case 'q': s = typeof a === 'string' ? JSON.stringify(a) : goValue(a); break;
      case 't': s = typeof a === 'boolean' ? String(a) : `%!t(${typeof a}=${goValue(a)})`; break;
      case 'x': case 'X': s = typeof a === 'number' ? Math.trunc(a).toString(16) : Buffer.from(String(a)).toString('hex'); if (verb === 'X') s = s.toUpperCase(); break;
      case 'b': s = typeof a === 'number' ? Math.trunc(a).toString(2) : goValue(a); break;
      case 'T': s = a === null ? '<nil>' : Array.isArray(a) ? '[]interface {}' : typeof a === 'object' ? 'map[string]interface {}' : typeof a === 'number' ? (Number.isInteger(a) ? 'int64' : 'float64') : typeof a === 'boolean' ? 'bool' : 'string'; break;
      default: s = goValue(a); if (prec !== undefined && typeof a === 'string') s = s.slice(0, Number(prec));
    }
    if (width && s.length < Number(width)) s = flags.includes('-') ? s.padEnd(Number(width)) : s.padStart(Number(width), flags.includes('0') && verb !== 's' ? '0' : ' ');
    return s;
  }) + (ai < args.length ? `%!(EXTRA ${args.slice(ai).map((a) => `${typeof a === 'string' ? 'string' : typeof a}=${goValue(a)}`).join(', ')})` : '');
}

function cmp(name: string, a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') {
    // Go keeps int64 and float64 apart: comparing them is an error, as in kubectl.
    if (Number.isInteger(a) !== Number.isInteger(b)) throw new ExecError(`error calling ${name}: incompatible types for comparison`);
    return a - b;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (name === 'eq' || name === 'ne') return a === b ? 0 : 1;
  throw new ExecError(`error calling ${name}: incompatible types for comparison`);
}

const funcs: Record<string, (...args: Value[]) => Value> = {
  and: (...a) => a.find((x) => !truth(x)) ?? a[a.length - 1],
  or: (...a) => a.find((x) => truth(x)) ?? a[a.length - 1],
  not: (a) => !truth(a),
  len: (a) => {
    if (typeof a === 'string' || Array.isArray(a)) return a.length;
    if (a && typeof a === 'object') return Object.keys(a).length;
    throw new ExecError(`error calling len: len of type ${a === null || a === noValue ? '<nil>' : typeof a}`);
  },
  index: (a, ...keys) => {
    let cur = a;
    for (const k of keys) {
      if (Array.isArray(cur) && typeof k === 'number') {
        if (k < 0 || k >= cur.length) throw new ExecError(`error calling index: index out of range: ${k}`);
        cur = cur[k];
      } else if (cur && typeof cur === 'object' && typeof k === 'string') cur = (cur as Record<string, unknown>)[k] ?? noValue;
      else if (cur === null || cur === noValue) throw new ExecError('error calling index: index of untyped nil');
      else throw new ExecError(`error calling index: cannot index slice/array with type ${typeof k}`);
    }
    return cur;
  },
  printf: (f, ...a) => sprintf(String(f), a),
  print: (...a) => a.map((x, i) => (i > 0 && typeof x !== 'string' && typeof a[i - 1] !== 'string' ? ' ' : '') + goValue(x)).join(''),
  println: (...a) => `${a.map(goValue).join(' ')}\n`,
  eq: (a, ...b) => b.some((x) => cmp('eq', a, x) === 0),
  ne: (a, b) => cmp('ne', a, b) !== 0,
  lt: (a, b) => cmp('lt', a, b) < 0,
  le: (a, b) => cmp('le', a, b) <= 0,
  gt: (a, b) => cmp('gt', a, b) > 0,
  ge: (a, b) => cmp('ge', a, b) >= 0,
  base64decode: (a) => Buffer.from(String(a), 'base64').toString('utf8'),
};

export interface GoTemplateOptions {
  allowMissingKeys?: boolean;
}

/** A failure while executing (a template function's, a missing key's); private, reported as a ClientError('TemplateExecute'). */
class ExecError extends Error {}

/** A compiled template: parse once, execute per object. */
export class GoTemplate {
  private readonly nodes: TNode[];
  private readonly template: string;
  private readonly allowMissing: boolean;

  constructor(template: string, options: GoTemplateOptions = {}) {
    this.template = template;
    this.allowMissing = options.allowMissingKeys ?? true;
    this.nodes = parse(template);
  }

  execute(data: unknown): string {
    let out = '';
    const vars: { name: string; value: Value }[] = [{ name: '$', value: data }];
    const field = (base: Value, chain: string[], pos: string, text: string): Value => {
      let cur = base;
      for (const name of chain) {
        if (cur === noValue || cur === null || cur === undefined) {
          throw new ExecError(`template: output:${pos}: executing "output" at <${text}>: nil pointer evaluating interface {}.${name}`);
        }
        if (typeof cur !== 'object' || Array.isArray(cur)) {
          throw new ExecError(`template: output:${pos}: executing "output" at <${text}>: can't evaluate field ${name} in type ${Array.isArray(cur) ? '[]interface {}' : typeof cur === 'number' ? 'int64' : typeof cur}`);
        }
        const rec = cur as Record<string, unknown>;
        if (name in rec) cur = rec[name];
        else if (this.allowMissing) cur = noValue;
        else throw new ExecError(`template: output:${pos}: executing "output" at <${text}>: map has no entry for key "${name}"`);
      }
      return cur;
    };
    const lookupVar = (name: string): Value => {
      for (let i = vars.length - 1; i >= 0; i--) if (vars[i].name === name) return vars[i].value;
      throw new ExecError(`template: output: undefined variable: ${name}`);
    };
    const operand = (o: Operand, dot: Value): Value => {
      switch (o.t) {
        case 'dot': return dot;
        case 'lit': return o.value;
        case 'field': return field(dot, o.chain, o.pos, o.text);
        case 'var': return field(lookupVar(o.name), o.chain, o.pos, o.text);
        case 'sub': return field(pipeline(o.pipe, dot), o.chain, o.pos, o.text);
        case 'ident': return call(o.name, []);
      }
    };
    const call = (name: string, args: Value[], at?: Command): Value => {
      try {
        return funcs[name](...args);
      } catch (err) {
        const msg = (err as Error).message;
        throw new ExecError(`template: output:${at?.pos ?? ''}: executing "output" at <${at?.text ?? name}>: ${msg.startsWith('error calling') ? msg : `error calling ${name}: ${msg}`}`);
      }
    };
    const pipeline = (p: Pipeline, dot: Value): Value => {
      let last: Value = undefined;
      let hasLast = false;
      for (const cmd of p.cmds) {
        const [head, ...rest] = cmd.ops;
        if (head.t === 'ident') {
          const args = rest.map((a) => operand(a, dot));
          if (hasLast) args.push(last);
          last = call(head.name, args, cmd);
        } else {
          if (rest.length || hasLast) throw new ExecError(`template: output: can't give argument to non-function ${goValue(operand(head, dot))}`);
          last = operand(head, dot);
        }
        hasLast = true;
      }
      if (p.decl.length === 1) {
        if (p.assign) {
          const v = [...vars].reverse().find((x) => x.name === p.decl[0]);
          if (!v) throw new ExecError(`template: output: undefined variable: ${p.decl[0]}`);
          v.value = last;
        } else vars.push({ name: p.decl[0], value: last });
      }
      return last;
    };
    const walk = (nodes: TNode[], dot: Value) => {
      for (const n of nodes) {
        if (n.t === 'text') out += n.text;
        else if (n.t === 'action') {
          const v = pipeline(n.pipe, dot);
          if (!n.pipe.decl.length) out += goValue(v);
        } else if (n.t === 'if' || n.t === 'with') {
          const mark = vars.length;
          const v = pipeline(n.pipe, dot);
          if (truth(v)) walk(n.list, n.t === 'with' ? v : dot);
          else walk(n.elseList, dot);
          vars.length = mark;
        } else {
          const mark = vars.length;
          const decl = n.pipe.decl;
          const v = pipeline({ ...n.pipe, decl: [] }, dot);
          const entries: [Value, Value][] = Array.isArray(v)
            ? v.map((x, i) => [i, x])
            : v && typeof v === 'object'
              ? Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])
              : [];
          if (v !== noValue && v !== null && v !== undefined && typeof v !== 'object' && typeof v !== 'number') {
            throw new ExecError(`template: output: range can't iterate over ${goValue(v)}`);
          }
          if (typeof v === 'number') for (let i = 0; i < v; i++) entries.push([i, i]);
          if (!entries.length) walk(n.elseList, dot);
          for (const [k, x] of entries) {
            const inner = vars.length;
            if (decl.length === 1) vars.push({ name: decl[0], value: x });
            if (decl.length === 2) vars.push({ name: decl[0], value: k }, { name: decl[1], value: x });
            walk(n.list, x);
            vars.length = inner;
          }
          vars.length = mark;
        }
      }
    };
    try {
      walk(this.nodes, data);
    } catch (err) {
      if (err instanceof ExecError) {
        throw new ClientError('TemplateExecute', `error executing template ${goQuote(this.template)}: ${err.message}`, {
          cause: { partial: out, raw: goJson(data, 0), object: goValue(data) },
        });
      }
      throw err;
    }
    return out;
  }
}
