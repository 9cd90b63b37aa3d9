import { goQuote } from '@plat/api-model';

/**
 * The syntax error Go's encoding/json reports for a text that is not one JSON value (its
 * checkValid scanner, run by json.Unmarshal before decoding), or undefined when the text is
 * valid JSON. kubectl passes a `{`-prefixed patch to the patch libraries as it is, and they
 * print these messages: `invalid character 'd' looking for beginning of object key string`,
 * `unexpected end of JSON input`. Iterative, like Go's scanner, with Go's nesting limit.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  const scanner = new Scanner(false);
  for (const c of Buffer.from(text, 'utf8')) {
    const err = scanner.step(c);
    if (err) return err;
  }
  return scanner.eof();
}

/** The values of a JSON stream, or the error that ended it (after the values before it). */
export interface JsonStream {
  /** Each value's text as written (kubectl keeps the raw bytes of each document). */
  readonly values: string[];
  /** `json: offset N: <syntax error>` or `unexpected EOF`, as json.Decoder in kubectl's YAMLOrJSONDecoder. */
  readonly error?: string;
}

/** Splits a stream of JSON values as Go's json.Decoder reads it, value by value. */
export function scanJsonStream(text: string): JsonStream {
  const bytes = Buffer.from(text, 'utf8');
  const values: string[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const scanner = new Scanner(true);
    let start = -1;
    for (; pos < bytes.length; pos++) {
      const c = bytes[pos];
      if (start < 0 && !isSpace(c)) start = pos;
      const err = scanner.step(c);
      if (err) return { values, error: `json: offset ${pos + 1}: ${err}` };
      if (scanner.endTop) break;
    }
    if (start < 0) break;
    // At the end of the input a number or literal is complete; anything else was cut short,
    // which json.Decoder answers with io.ErrUnexpectedEOF.
    if (!scanner.endTop && scanner.eof() !== undefined) return { values, error: 'unexpected EOF' };
    // A container ends on its closing byte; a number or literal on the byte after it, which
    // starts the next value.
    const end = scanner.delimited || pos >= bytes.length ? pos : pos + 1;
    values.push(bytes.subarray(start, end).toString('utf8'));
    pos = end;
  }
  return { values };
}

const MAX_NESTING_DEPTH = 10000;

const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

type State = (s: Scanner, c: number) => string | undefined;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const ch = (s: string) => s.charCodeAt(0);

/** Go's quoteChar: a byte as a quoted character (`'x'`, `'\''`, `'"'`, `'\x01'`). */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const q = goQuote(String.fromCharCode(c));
  return `'${q.slice(1, -1)}'`;
}

class Scanner {
  state: State = beginValue;
  stack: Parse[] = [];
  endTop = false;
  /** A top-level number or literal ended at the byte just stepped, which is not part of it. */
  delimited = false;
  done?: string;

  /** In a stream the byte after a top-level scalar belongs to the next value. */
  constructor(readonly stream: boolean) {}

  step(c: number): string | undefined {
    this.done = this.state(this, c);
    return this.done;
  }

  eof(): string | undefined {
    if (this.done) return this.done;
    if (this.endTop) return undefined;
    const err = this.state(this, 0x20);
    if (err) return err;
    if (this.endTop) return undefined;
    return 'unexpected end of JSON input';
  }

  error(c: number, context: string): string {
    return `invalid character ${quoteChar(c)} ${context}`;
  }

  push(p: Parse): string | undefined {
    this.stack.push(p);
    return this.stack.length > MAX_NESTING_DEPTH ? 'exceeded max depth' : undefined;
  }

  pop(): void {
    this.stack.pop();
    if (this.stack.length === 0) {
      this.state = endTop;
      this.endTop = true;
    } else this.state = endValue;
  }
}

function beginValueOrEmpty(s: Scanner, c: number): string | undefined {
  if (isSpace(c)) return undefined;
  if (c === ch(']')) return endValue(s, c);
  return beginValue(s, c);
}

function beginValue(s: Scanner, c: number): string | undefined {
  if (isSpace(c)) return undefined;
  switch (c) {
    case ch('{'):
      s.state = beginStringOrEmpty;
      return s.push(Parse.ObjectKey);
    case ch('['):
      s.state = beginValueOrEmpty;
      return s.push(Parse.ArrayValue);
    case ch('"'):
      s.state = inString;
      return undefined;
    case ch('-'):
      s.state = neg;
      return undefined;
    case ch('0'):
      s.state = zero;
      return undefined;
    case ch('t'):
      s.state = literal('true', 1);
      return undefined;
    case ch('f'):
      s.state = literal('false', 1);
      return undefined;
    case ch('n'):
      s.state = literal('null', 1);
      return undefined;
  }
  if (c >= ch('1') && c <= ch('9')) {
    s.state = one;
    return undefined;
  }
  return s.error(c, 'looking for beginning of value');
}

function beginStringOrEmpty(s: Scanner, c: number): string | undefined {
  if (isSpace(c)) return undefined;
  if (c === ch('}')) {
    s.stack[s.stack.length - 1] = Parse.ObjectValue;
    return endValue(s, c);
  }
  return beginString(s, c);
}

function beginString(s: Scanner, c: number): string | undefined {
  if (isSpace(c)) return undefined;
  if (c === ch('"')) {
    s.state = inString;
    return undefined;
  }
  return s.error(c, 'looking for beginning of object key string');
}

function endValue(s: Scanner, c: number): string | undefined {
  const n = s.stack.length;
  if (n === 0) {
    s.state = endTop;
    s.endTop = true;
    if (s.stream) {
      s.delimited = true;
      return undefined;
    }
    return endTop(s, c);
  }
  if (isSpace(c)) {
    s.state = endValue;
    return undefined;
  }
  switch (s.stack[n - 1]) {
    case Parse.ObjectKey:
      if (c === ch(':')) {
        s.stack[n - 1] = Parse.ObjectValue;
        s.state = beginValue;
        return undefined;
      }
      return s.error(c, 'after object key');
    case Parse.ObjectValue:
      if (c === ch(',')) {
        s.stack[n - 1] = Parse.ObjectKey;
        s.state = beginString;
        return undefined;
      }
      if (c === ch('}')) {
        s.pop();
        return undefined;
      }
      return s.error(c, 'after object key:value pair');
    default:
      if (c === ch(',')) {
        s.state = beginValue;
        return undefined;
      }
      if (c === ch(']')) {
        s.pop();
        return undefined;
      }
      return s.error(c, 'after array element');
  }
}

function endTop(s: Scanner, c: number): string | undefined {
  return isSpace(c) ? undefined : s.error(c, 'after top-level value');
}

function inString(s: Scanner, c: number): string | undefined {
  if (c === ch('"')) {
    s.state = endValue;
    return undefined;
  }
  if (c === ch('\\')) {
    s.state = inStringEsc;
    return undefined;
  }
  return c < 0x20 ? s.error(c, 'in string literal') : undefined;
}

function inStringEsc(s: Scanner, c: number): string | undefined {
  if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
    s.state = inString;
    return undefined;
  }
  if (c === ch('u')) {
    s.state = unicodeEscape(4);
    return undefined;
  }
  return s.error(c, 'in string escape code');
}

function unicodeEscape(left: number): State {
  return (s, c) => {
    if (!isHex(c)) return s.error(c, 'in \\u hexadecimal character escape');
    s.state = left === 1 ? inString : unicodeEscape(left - 1);
    return undefined;
  };
}

function neg(s: Scanner, c: number): string | undefined {
  if (c === ch('0')) {
    s.state = zero;
    return undefined;
  }
  if (c >= ch('1') && c <= ch('9')) {
    s.state = one;
    return undefined;
  }
  return s.error(c, 'in numeric literal');
}

function one(s: Scanner, c: number): string | undefined {
  return isDigit(c) ? undefined : zero(s, c);
}

function zero(s: Scanner, c: number): string | undefined {
  if (c === ch('.')) {
    s.state = dot;
    return undefined;
  }
  if (c === ch('e') || c === ch('E')) {
    s.state = exponent;
    return undefined;
  }
  return endValue(s, c);
}

function dot(s: Scanner, c: number): string | undefined {
  if (isDigit(c)) {
    s.state = dotDigits;
    return undefined;
  }
  return s.error(c, 'after decimal point in numeric literal');
}

function dotDigits(s: Scanner, c: number): string | undefined {
  if (isDigit(c)) return undefined;
  if (c === ch('e') || c === ch('E')) {
    s.state = exponent;
    return undefined;
  }
  return endValue(s, c);
}

function exponent(s: Scanner, c: number): string | undefined {
  if (c === ch('+') || c === ch('-')) {
    s.state = exponentSign;
    return undefined;
  }
  return exponentSign(s, c);
}

function exponentSign(s: Scanner, c: number): string | undefined {
  if (isDigit(c)) {
    s.state = exponentDigits;
    return undefined;
  }
  return s.error(c, 'in exponent of numeric literal');
}

function exponentDigits(s: Scanner, c: number): string | undefined {
  return isDigit(c) ? undefined : endValue(s, c);
}

/** `true`, `false`, `null` after their first letter: `in literal true (expecting 'r')`. */
function literal(word: string, at: number): State {
  return (s, c) => {
    if (c !== word.charCodeAt(at)) return s.error(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(at))})`);
    s.state = at + 1 === word.length ? endValue : literal(word, at + 1);
    return undefined;
  };
}
