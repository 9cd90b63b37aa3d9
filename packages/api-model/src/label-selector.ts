import { aggregateFieldErrors, fieldError, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { isQualifiedName, isValidLabelValue } from './label-validation.js';
import { compareGoStrings } from './go-string-order.js';
import { SelectorError } from './selector-error.js';

/**
 * Label selectors with Kubernetes' grammar and error texts (`k8s.io/apimachinery/pkg/labels`):
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE ("," VALUE)* ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 *
 * A selector is parsed and compiled once, then matched against any number of label maps.
 */

export const SelectionOperator = {
  DoesNotExist: '!',
  Equals: '=',
  DoubleEquals: '==',
  In: 'in',
  NotEquals: '!=',
  NotIn: 'notin',
  Exists: 'exists',
  GreaterThan: 'gt',
  LessThan: 'lt',
} as const;
export type SelectionOperator = (typeof SelectionOperator)[keyof typeof SelectionOperator];

/** Kubernetes lists the binary operators in this order in its "expected:" messages. */
const binaryOperators: readonly SelectionOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const unaryOperators: readonly SelectionOperator[] = ['exists', '!'];
const validOperators: readonly string[] = [...binaryOperators, ...unaryOperators];

/** One requirement of a label selector; `values` as given to the constructor (the parser sorts and dedups them). */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: SelectionOperator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>>;

export interface LabelRequirementOptions {
  /** Prefix of the field paths in validation errors (Kubernetes' `field.WithPath`). */
  path?: FieldPath;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`, or undefined when it would fail. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** A requirement with its matching precomputed. */
class CompiledRequirement implements LabelSelectorRequirement {
  private readonly set: ReadonlySet<string> | undefined;
  private readonly bound: bigint | undefined;

  constructor(
    readonly key: string,
    readonly operator: SelectionOperator,
    readonly values: readonly string[],
  ) {
    this.set = values.length > 4 ? new Set(values) : undefined;
    this.bound = values.length === 1 ? parseInt64(values[0]!) : undefined;
  }

  private hasValue(v: string): boolean {
    return this.set ? this.set.has(v) : this.values.includes(v);
  }

  matches(labels: Labels): boolean {
    const present = Object.hasOwn(labels, this.key);
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return present && this.hasValue(labels[this.key]!);
      case 'notin':
      case '!=':
        return !present || !this.hasValue(labels[this.key]!);
      case 'exists':
        return present;
      case '!':
        return !present;
      case 'gt':
      case 'lt': {
        if (!present || this.bound === undefined) return false;
        const v = parseInt64(labels[this.key]!);
        if (v === undefined) return false;
        return this.operator === 'gt' ? v > this.bound : v < this.bound;
      }
    }
  }

  toString(): string {
    let out = this.operator === '!' ? `!${this.key}` : this.key;
    switch (this.operator) {
      case 'exists':
      case '!':
        return out;
      case '=':
      case '==':
      case '!=':
        out += this.operator;
        break;
      case 'in':
      case 'notin':
        out += ` ${this.operator} (`;
        break;
      case 'gt':
        out += '>';
        break;
      case 'lt':
        out += '<';
        break;
    }
    out += this.values.length === 1 ? this.values[0] : [...this.values].sort(compareGoStrings).join(',');
    if (this.operator === 'in' || this.operator === 'notin') out += ')';
    return out;
  }
}

const nilPath = '<nil>';
const pathString = (path: FieldPath | undefined) => (path ? path.toString() : nilPath);
const childPath = (path: FieldPath | undefined, name: string) => (path ? path.child(name) : FieldPath.root(name));

function validateLabelKey(key: string, path: FieldPath | string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? fieldError.invalid(path, key, errs.join('; ')) : undefined;
}

/** The validation errors Kubernetes' `NewRequirement` reports for these parts. */
export function validateLabelRequirement(
  key: string,
  operator: string,
  values: readonly string[],
  options: LabelRequirementOptions = {},
): FieldError[] {
  const { path } = options;
  const errs: FieldError[] = [];
  const keyErr = validateLabelKey(key, childPath(path, 'key'));
  if (keyErr) errs.push(keyErr);
  const valuePath = childPath(path, 'values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(fieldError.invalid(valuePath, [...values], "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(fieldError.invalid(valuePath, [...values], 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(fieldError.invalid(valuePath, [...values], 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(fieldError.invalid(valuePath, [...values], "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(fieldError.invalid(valuePath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(fieldError.notSupported(childPath(path, 'operator'), operator, validOperators));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(fieldError.invalid(valuePath.index(i).key(key), v, msgs.join('; ')));
  });
  return errs;
}

/**
 * Kubernetes' `NewRequirement`: a validated requirement, or a SelectorError whose message is the
 * aggregated field errors.
 */
export function newLabelRequirement(
  key: string,
  operator: SelectionOperator,
  values: readonly string[],
  options: LabelRequirementOptions = {},
): LabelSelectorRequirement {
  const errs = validateLabelRequirement(key, operator, values, options);
  if (errs.length) throw new SelectorError('InvalidLabelSelector', aggregateFieldErrors(errs), errs);
  return new CompiledRequirement(key, operator, [...values]);
}

const byKey = (a: LabelSelectorRequirement, b: LabelSelectorRequirement) => compareGoStrings(a.key, b.key);

/** A compiled label selector: an AND of requirements, or the selector that matches nothing. */
export class LabelSelector {
  private static readonly everythingSelector = new LabelSelector([], false);
  private static readonly nothingSelector = new LabelSelector([], true);

  private constructor(
    private readonly reqs: readonly CompiledRequirement[],
    private readonly nothing: boolean,
  ) {}

  /** Parses Kubernetes' selector syntax; throws SelectorError with Kubernetes' message. */
  static parse(selector: string, options: LabelRequirementOptions = {}): LabelSelector {
    const reqs = new Parser(selector, options.path).parse();
    return reqs.length === 0 ? LabelSelector.everythingSelector : new LabelSelector(reqs.sort(byKey), false);
  }

  /** Matches every label set (an empty selector string). */
  static everything(): LabelSelector {
    return LabelSelector.everythingSelector;
  }

  /** Matches no label set (Kubernetes' `labels.Nothing()`). */
  static nothing(): LabelSelector {
    return LabelSelector.nothingSelector;
  }

  /** `k1=v1,k2=v2` for a set; with `validate`, each pair is checked as Kubernetes' `ValidatedSelectorFromSet` does. */
  static fromSet(set: Labels | null | undefined, options: { validate?: boolean } = {}): LabelSelector {
    const entries = Object.entries(set ?? {});
    if (entries.length === 0) return LabelSelector.everythingSelector;
    const reqs = entries.map(([k, v]) =>
      options.validate ? (newLabelRequirement(k, '=', [v]) as CompiledRequirement) : new CompiledRequirement(k, '=', [v]),
    );
    return new LabelSelector(reqs.sort(byKey), false);
  }

  /** A selector of the given requirements (built with newLabelRequirement or taken from another selector). */
  static fromRequirements(reqs: readonly LabelSelectorRequirement[]): LabelSelector {
    if (reqs.length === 0) return LabelSelector.everythingSelector;
    return new LabelSelector(reqs.map(compile).sort(byKey), false);
  }

  /** A new selector with more requirements (Kubernetes' `Add`). */
  add(...reqs: LabelSelectorRequirement[]): LabelSelector {
    if (this.nothing) return this;
    return new LabelSelector([...this.reqs, ...reqs.map(compile)].sort(byKey), false);
  }

  matches(labels: Labels | null | undefined): boolean {
    if (this.nothing) return false;
    const l = labels ?? {};
    for (const r of this.reqs) if (!r.matches(l)) return false;
    return true;
  }

  /** True when the selector does not restrict anything. */
  isEmpty(): boolean {
    return !this.nothing && this.reqs.length === 0;
  }

  /** True only for `LabelSelector.nothing()`. */
  matchesNothing(): boolean {
    return this.nothing;
  }

  requirements(): readonly LabelSelectorRequirement[] {
    return this.reqs;
  }

  /** The value a selector demands for `key` (`=`, `==` or a one-value `in`), if any. */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== key) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }

  /** Kubernetes' canonical form: requirements sorted by key, joined by commas. */
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(',');
  }
}

function compile(r: LabelSelectorRequirement): CompiledRequirement {
  return r instanceof CompiledRequirement ? r : new CompiledRequirement(r.key, r.operator, [...r.values]);
}

/** Parses a label selector string (same as `LabelSelector.parse`). */
export function parseLabelSelector(selector: string, options: LabelRequirementOptions = {}): LabelSelector {
  return LabelSelector.parse(selector, options);
}

// ---- lexer and parser (Kubernetes' labels/selector.go grammar) ----

const enum Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens: ReadonlyMap<string, Token> = new Map([
  [')', Token.ClosedPar],
  [',', Token.Comma],
  ['!', Token.DoesNotExist],
  ['==', Token.DoubleEquals],
  ['=', Token.Equals],
  ['>', Token.GreaterThan],
  ['in', Token.In],
  ['<', Token.LessThan],
  ['!=', Token.NotEquals],
  ['notin', Token.NotIn],
  ['(', Token.OpenPar],
]);

const isWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
// = ! ( ) , > <
const isSpecialSymbol = (c: number) => c === 0x3d || c === 0x21 || c === 0x28 || c === 0x29 || c === 0x2c || c === 0x3e || c === 0x3c;

interface ScannedItem {
  tok: Token;
  lit: string;
}

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  /** The next code unit, or 0 at the end; a NUL character also reads as 0, as in Go. */
  private read(): number {
    if (this.pos < this.s.length) return this.s.charCodeAt(this.pos++);
    return 0;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): ScannedItem {
    const start = this.pos;
    let end: number;
    for (;;) {
      const before = this.pos;
      const ch = this.read();
      if (ch === 0) {
        // The end of the input, or a NUL character, which Go consumes and ends the identifier on.
        end = before;
        break;
      }
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        end = this.pos;
        break;
      }
    }
    const lit = this.s.slice(start, end);
    const tok = literalTokens.get(lit);
    return tok !== undefined ? { tok, lit } : { tok: Token.Identifier, lit };
  }

  private scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === 0) break;
      if (isSpecialSymbol(ch)) {
        buffer += String.fromCharCode(ch);
        const tok = literalTokens.get(buffer);
        if (tok !== undefined) {
          last = { tok, lit: buffer };
        } else if (last) {
          this.unread();
          break;
        }
      } else {
        this.unread();
        break;
      }
    }
    return last ?? { tok: Token.Error, lit: `error expected: keyword found '${buffer}'` };
  }

  lex(): ScannedItem {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === 0) return { tok: Token.EndOfString, lit: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

const enum Context {
  KeyAndOperator,
  Values,
}

class Parser {
  private readonly items: ScannedItem[] = [];
  private position = 0;

  constructor(
    selector: string,
    private readonly path: FieldPath | undefined,
  ) {
    const lexer = new Lexer(selector);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === Token.EndOfString) break;
    }
  }

  private static inContext(item: ScannedItem, context: Context): ScannedItem {
    // `in` and `notin` are plain identifiers where a key or value is expected.
    if (context === Context.Values && (item.tok === Token.In || item.tok === Token.NotIn)) {
      return { tok: Token.Identifier, lit: item.lit };
    }
    return item;
  }

  private lookahead(context: Context): ScannedItem {
    return Parser.inContext(this.items[this.position]!, context);
  }

  private consume(context: Context): ScannedItem {
    return Parser.inContext(this.items[this.position++]!, context);
  }

  private fail(message: string, causes: readonly FieldError[] = []): never {
    throw new SelectorError('InvalidLabelSelector', message, causes);
  }

  parse(): CompiledRequirement[] {
    const reqs: CompiledRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(Context.Values);
      switch (tok) {
        case Token.Identifier:
        case Token.DoesNotExist: {
          reqs.push(this.parseRequirement());
          const next = this.consume(Context.Values);
          if (next.tok === Token.EndOfString) return reqs;
          if (next.tok === Token.Comma) {
            const after = this.lookahead(Context.Values);
            if (after.tok !== Token.Identifier && after.tok !== Token.DoesNotExist) {
              this.fail(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          return this.fail(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case Token.EndOfString:
          return reqs;
        default:
          return this.fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private requirement(key: string, operator: SelectionOperator, values: string[]): CompiledRequirement {
    const errs = validateLabelRequirement(key, operator, values, { path: this.path });
    if (errs.length) this.fail(`unable to parse requirement: ${aggregateFieldErrors(errs)}`, errs);
    return new CompiledRequirement(key, operator, values);
  }

  private parseRequirement(): CompiledRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return this.requirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    // Kubernetes collects values in a set and lists them sorted.
    return this.requirement(key, op, [...values].sort(compareGoStrings));
  }

  private parseKeyAndInferOperator(): { key: string; operator: SelectionOperator | undefined } {
    let operator: SelectionOperator | undefined;
    let item = this.consume(Context.Values);
    if (item.tok === Token.DoesNotExist) {
      operator = '!';
      item = this.consume(Context.Values);
    }
    if (item.tok !== Token.Identifier) this.fail(`unable to parse requirement: found '${item.lit}', expected: identifier`);
    const keyErr = validateLabelKey(item.lit, pathString(this.path));
    if (keyErr) this.fail(`unable to parse requirement: ${keyErr.toString()}`, [keyErr]);
    const next = this.lookahead(Context.Values).tok;
    if ((next === Token.EndOfString || next === Token.Comma) && operator !== '!') operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): SelectionOperator {
    const { tok, lit } = this.consume(Context.KeyAndOperator);
    switch (tok) {
      case Token.In:
        return 'in';
      case Token.Equals:
        return '=';
      case Token.DoubleEquals:
        return '==';
      case Token.GreaterThan:
        return 'gt';
      case Token.LessThan:
        return 'lt';
      case Token.NotIn:
        return 'notin';
      case Token.NotEquals:
        return '!=';
      default:
        return this.fail(`unable to parse requirement: found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(Context.Values);
    if (open.tok !== Token.OpenPar) this.fail(`unable to parse requirement: found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(Context.Values);
    switch (tok) {
      case Token.Identifier:
      case Token.Comma: {
        const values = this.parseIdentifiersList();
        // Kubernetes reports the token seen before the list here, not the one that failed.
        if (this.consume(Context.Values).tok !== Token.ClosedPar) this.fail(`unable to parse requirement: found '${lit}', expected: ')'`);
        return values;
      }
      case Token.ClosedPar:
        this.consume(Context.Values);
        return new Set(['']);
      default:
        return this.fail(`unable to parse requirement: found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(Context.Values);
      switch (tok) {
        case Token.Identifier: {
          values.add(lit);
          const next = this.lookahead(Context.Values);
          if (next.tok === Token.Comma) continue;
          if (next.tok === Token.ClosedPar) return values;
          return this.fail(`unable to parse requirement: found '${next.lit}', expected: ',' or ')'`);
        }
        case Token.Comma: {
          // "(," and ",," and ",)" each stand for an empty value.
          if (values.size === 0) values.add('');
          const next = this.lookahead(Context.Values).tok;
          if (next === Token.ClosedPar) {
            values.add('');
            return values;
          }
          if (next === Token.Comma) values.add('');
          continue;
        }
        default:
          return this.fail(`unable to parse requirement: found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(Context.Values).tok;
    if (next === Token.EndOfString || next === Token.Comma) return new Set(['']);
    const { tok, lit } = this.consume(Context.Values);
    if (tok === Token.Identifier) return new Set([lit]);
    return this.fail(`unable to parse requirement: found '${lit}', expected: identifier`);
  }
}
