import { aggregateFieldErrors, type FieldError } from './field-error.js';
import type { FieldPath } from './field-path.js';
import { compareGoStrings } from './go-string-order.js';
import {
  binaryOperators,
  CompiledRequirement,
  pathString,
  validateLabelKey,
  validateLabelRequirement,
  type SelectionOperator,
} from './label-requirement.js';
import { SelectorError } from './selector-error.js';

/**
 * Kubernetes' label selector lexer and recursive-descent parser (labels/selector.go), token for
 * token, so that every malformed selector fails with the same message as in Kubernetes.
 */

/** The requirements of a selector string, in input order; throws SelectorError. */
export function parseLabelRequirements(selector: string, path: FieldPath | undefined): CompiledRequirement[] {
  return new Parser(selector, path).parse();
}

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
