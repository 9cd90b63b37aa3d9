/**
 * The one JSON decoder for data from the wire or from files, shared by server and client. It
 * reads JSON the way Kubernetes' decoders do (sigs.k8s.io/json over Go's encoding/json):
 *
 * - nesting is bounded (Go's scanner stops at 10,000 levels with `exceeded max depth`; this
 *   decoder stops at {@link maxNestingDepth}, because every walk over a decoded value in
 *   JavaScript, V8's own JSON.stringify and structuredClone included, recurses on the stack);
 * - integers keep their exact value: within ±(2^53-1) a number, within int64 a `bigint`, beyond
 *   int64 a float64 number as Go's unstructured decoding gives (or, with `beyondInt64: 'exact'`,
 *   a `bigint` so that typed decoding can refuse it naming the literal, as Go's does);
 * - a number beyond float64 is an error, as Go's ParseFloat range error is;
 * - repeated keys are kept last-wins and, when asked, reported by path (`metadata.labels.a`,
 *   `items[0].name`), as the strict decoder reports `duplicate field "<path>"`;
 * - syntax errors are worded as Go's scanner words them (`invalid character 'x' looking for
 *   beginning of value`, `unexpected end of JSON input`).
 *
 * The scan is one iterative pass (no recursion, linear time). Text without integers beyond
 * ±(2^53-1) is then handed to the native JSON.parse, which is iterative too and much faster
 * than building the value here; only text with such integers is built by this scanner.
 */

/**
 * Deepest nesting of arrays and objects accepted in JSON and YAML from the wire or from files.
 * Kubernetes accepts 10,000; V8 cannot even JSON.stringify a value 4,200 levels deep from an
 * empty stack, structuredClone stops near 2,000 and the YAML library's composer near 780, so every
 * decoder here stops well below what the recursive walks after it can take.
 */
export const maxNestingDepth = 256;

export type JsonDecodeErrorCode = 'syntax' | 'depth' | 'number';

/** A JSON text that cannot be decoded; `message` is Go's wording, `offset` the character index. */
export class JsonDecodeError extends Error {
  override readonly name = 'JsonDecodeError';
  constructor(
    readonly code: JsonDecodeErrorCode,
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export interface DecodeJsonOptions {
  /** Deepest nesting accepted (default {@link maxNestingDepth}). */
  maxDepth?: number;
  /** Report repeated object keys by path in `duplicates` (they cost a Set per object). */
  findDuplicates?: boolean;
  /**
   * Integer literals beyond int64: `float` (default) decodes them as float64 numbers, as Go's
   * unstructured decoding does; `exact` keeps them as bigint for a typed decoder to refuse.
   */
  beyondInt64?: 'float' | 'exact';
}

export interface DecodedJson {
  value: unknown;
  /** Paths of repeated keys, each once, in order of appearance (only with `findDuplicates`). */
  duplicates: string[];
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Whether a bigint fits Go's int64. */
export function isInt64(v: bigint): boolean {
  return v >= int64Min && v <= int64Max;
}

/**
 * Whether a value nests arrays and objects more than `maxDepth` levels deep, walked without
 * recursion: for values built from decoded ones (a patched object), which can be deeper than
 * either part.
 */
export function exceedsNestingDepth(value: unknown, maxDepth = maxNestingDepth): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Decodes one JSON text; throws {@link JsonDecodeError}. */
export function decodeJson(text: string, opts: DecodeJsonOptions = {}): DecodedJson {
  const first = new JsonScanner(text, opts, false).run();
  if (!first.needsBuild) return { value: JSON.parse(text), duplicates: first.duplicates };
  const built = new JsonScanner(text, { ...opts, findDuplicates: false }, true).run();
  return { value: built.value, duplicates: first.duplicates };
}

/**
 * Sixteen digits in a row: the only way a JSON text can hold an integer beyond ±(2^53-1). Spelled
 * out, V8 scans for it several times faster than for `\d{16}`.
 */
const sixteenDigits = /\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d/;

/**
 * Decodes JSON this program wrote itself (stored objects, encoded with encodeJson): the native
 * parser, unless the text may hold an integer beyond ±(2^53-1), which is then decoded exactly.
 * No nesting bound: the value passed one when it came in.
 */
export function decodeStoredJson(text: string): unknown {
  if (!sixteenDigits.test(text)) return JSON.parse(text);
  return decodeJson(text, { maxDepth: Number.POSITIVE_INFINITY, beyondInt64: 'exact' }).value;
}

/**
 * Go's quoteChar: the offending byte as the scanner's errors show it. Go reports the first byte of
 * a multi-byte character, read as Latin-1 (a byte order mark shows as 'ï'), through strconv.Quote.
 */
function quoteChar(c: string): string {
  const b = Buffer.from(c, 'utf8')[0]!;
  if (b === 0x27) return `'\\''`;
  if (b === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  let inner: string;
  if (named[b]) inner = named[b]!;
  else if (b < 0x20 || b === 0x7f) inner = `\\x${b.toString(16).padStart(2, '0')}`;
  else if ((b >= 0x80 && b <= 0xa0) || b === 0xad) inner = `\\u00${b.toString(16)}`;
  else inner = String.fromCharCode(b);
  return `'${inner}'`;
}

interface Frame {
  isObject: boolean;
  value: Record<string, unknown> | unknown[] | undefined;
  key: string;
  index: number;
  seen: Set<string> | undefined;
}

// Character codes the scanner compares against.
const chTab = 0x09;
const chNl = 0x0a;
const chCr = 0x0d;
const chSpace = 0x20;
const chQuote = 0x22;
const chPlus = 0x2b;
const chComma = 0x2c;
const chMinus = 0x2d;
const chDot = 0x2e;
const chZero = 0x30;
const chNine = 0x39;
const chColon = 0x3a;
const chBracketOpen = 0x5b;
const chBackslash = 0x5c;
const chBracketClose = 0x5d;
const chE = 0x45;
const chLowerE = 0x65;
const chBraceOpen = 0x7b;
const chBraceClose = 0x7d;

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
/** A run of string characters that need no look: not a quote, backslash or control character. */
const plainRun = /[^"\\\u0000-\u001f]*/y;

class JsonScanner {
  private pos = 0;
  private readonly stack: Frame[] = [];
  private readonly maxDepth: number;
  readonly duplicates: string[] = [];
  private duplicateSet: Set<string> | undefined;
  needsBuild = false;
  value: unknown;

  constructor(
    private readonly text: string,
    private readonly opts: DecodeJsonOptions,
    private readonly build: boolean,
  ) {
    this.maxDepth = opts.maxDepth ?? maxNestingDepth;
  }

  private fail(code: JsonDecodeErrorCode, message: string): never {
    throw new JsonDecodeError(code, message, this.pos);
  }

  private unexpected(context: string): never {
    if (this.pos >= this.text.length) this.fail('syntax', 'unexpected end of JSON input');
    const c = String.fromCodePoint(this.text.codePointAt(this.pos)!);
    this.fail('syntax', `invalid character ${quoteChar(c)} ${context}`);
  }

  private skipWs(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === chSpace || c === chNl || c === chCr || c === chTab) p++;
      else break;
    }
    this.pos = p;
  }

  run(): this {
    this.skipWs();
    let v = this.readValue();
    for (;;) {
      // After a value: close containers or move on to the next member.
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        this.skipWs();
        if (this.pos < this.text.length) this.unexpected('after top-level value');
        this.value = v;
        return this;
      }
      if (this.build) this.attach(top, v);
      this.skipWs();
      const c = this.text.charCodeAt(this.pos);
      if (top.isObject) {
        if (c === chComma) {
          this.pos++;
          this.skipWs();
          this.readKey(top);
          v = this.readValue();
          continue;
        }
        if (c !== chBraceClose) this.unexpected('after object key:value pair');
      } else {
        if (c === chComma) {
          this.pos++;
          top.index++;
          this.skipWs();
          v = this.readValue();
          continue;
        }
        if (c !== chBracketClose) this.unexpected('after array element');
      }
      this.pos++;
      this.stack.pop();
      v = top.value;
    }
  }

  /** Reads a value; for an opened container, reads up to its first member's value (iteratively). */
  private readValue(): unknown {
    for (;;) {
      const t = this.text;
      const c = t.charCodeAt(this.pos);
      if (c === chBraceOpen || c === chBracketOpen) {
        if (this.stack.length >= this.maxDepth) this.fail('depth', 'exceeded max depth');
        const isObject = c === chBraceOpen;
        const frame: Frame = {
          isObject,
          value: this.build ? (isObject ? {} : []) : undefined,
          key: '',
          index: 0,
          seen: isObject && this.opts.findDuplicates ? new Set() : undefined,
        };
        this.pos++;
        this.skipWs();
        const close = t.charCodeAt(this.pos);
        if (close === (isObject ? chBraceClose : chBracketClose)) {
          this.pos++;
          return frame.value;
        }
        this.stack.push(frame);
        if (isObject) this.readKey(frame);
        continue;
      }
      if (c === chQuote) return this.readString();
      if (c === chMinus || (c >= chZero && c <= chNine)) return this.readNumber();
      if (c === 0x74) return this.readLiteral('true', true);
      if (c === 0x66) return this.readLiteral('false', false);
      if (c === 0x6e) return this.readLiteral('null', null);
      this.unexpected('looking for beginning of value');
    }
  }

  /** Reads `"key"` and the colon after it, leaving the position at the member's value. */
  private readKey(frame: Frame): void {
    if (this.text.charCodeAt(this.pos) !== chQuote) this.unexpected('looking for beginning of object key string');
    const key = this.readString(true);
    frame.key = key;
    if (frame.seen) {
      if (frame.seen.has(key)) this.noteDuplicate();
      else frame.seen.add(key);
    }
    this.skipWs();
    if (this.text.charCodeAt(this.pos) !== chColon) this.unexpected('after object key');
    this.pos++;
    this.skipWs();
  }

  private noteDuplicate(): void {
    let path = '';
    for (const f of this.stack) {
      if (f.isObject) path = path ? `${path}.${f.key}` : f.key;
      else path += `[${f.index}]`;
    }
    this.duplicateSet ??= new Set();
    if (!this.duplicateSet.has(path)) {
      this.duplicateSet.add(path);
      this.duplicates.push(path);
    }
  }

  private attach(frame: Frame, v: unknown): void {
    if (!frame.isObject) {
      (frame.value as unknown[]).push(v);
      return;
    }
    const obj = frame.value as Record<string, unknown>;
    // An own "__proto__" member, as JSON.parse creates it, not a prototype change.
    if (frame.key === '__proto__') Object.defineProperty(obj, '__proto__', { value: v, enumerable: true, writable: true, configurable: true });
    else obj[frame.key] = v;
  }

  private readString(needValue = this.build): string {
    const t = this.text;
    const start = this.pos + 1;
    let p = start;
    let escaped = false;
    for (;;) {
      plainRun.lastIndex = p;
      plainRun.test(t);
      p = plainRun.lastIndex;
      const c = t.charCodeAt(p);
      if (c === chQuote) break;
      if (c === chBackslash) {
        escaped = true;
        const e = t.charCodeAt(p + 1);
        if (e === 0x75) {
          // \uXXXX
          for (let k = 2; k < 6; k++) {
            const h = t.charCodeAt(p + k);
            const hex = (h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66);
            if (!hex) {
              this.pos = p + k;
              this.unexpected('in \\u hexadecimal character escape');
            }
          }
          p += 6;
          continue;
        }
        if (e === chQuote || e === chBackslash || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          p += 2;
          continue;
        }
        this.pos = p + 1;
        this.unexpected('in string escape code');
      }
      if (c < 0x20 || Number.isNaN(c)) {
        this.pos = p;
        this.unexpected('in string literal');
      }
      p++;
    }
    this.pos = p + 1;
    if (!needValue) return '';
    return escaped ? (JSON.parse(t.slice(start - 1, p + 1)) as string) : t.slice(start, p);
  }

  private readLiteral(word: string, value: unknown): unknown {
    const t = this.text;
    for (let k = 1; k < word.length; k++) {
      if (t.charCodeAt(this.pos + k) !== word.charCodeAt(k)) {
        this.pos += k;
        this.unexpected(`in literal ${word} (expecting '${word[k]}')`);
      }
    }
    this.pos += word.length;
    return value;
  }

  private readNumber(): unknown {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === chMinus) p++;
    const digitsStart = p;
    let c = t.charCodeAt(p);
    if (c === chZero) p++;
    else if (c > chZero && c <= chNine) {
      while ((c = t.charCodeAt(++p)) >= chZero && c <= chNine);
    } else {
      this.pos = p;
      this.unexpected('in numeric literal');
    }
    let integer = true;
    if (t.charCodeAt(p) === chDot) {
      integer = false;
      p++;
      c = t.charCodeAt(p);
      if (!(c >= chZero && c <= chNine)) {
        this.pos = p;
        this.unexpected('after decimal point in numeric literal');
      }
      while ((c = t.charCodeAt(++p)) >= chZero && c <= chNine);
    }
    c = t.charCodeAt(p);
    if (c === chE || c === chLowerE) {
      integer = false;
      p++;
      c = t.charCodeAt(p);
      if (c === chPlus || c === chMinus) c = t.charCodeAt(++p);
      if (!(c >= chZero && c <= chNine)) {
        this.pos = p;
        this.unexpected('in exponent of numeric literal');
      }
      while ((c = t.charCodeAt(++p)) >= chZero && c <= chNine);
    }
    this.pos = p;
    const digits = p - digitsStart;
    if (integer && digits <= 15) return this.build ? Number(t.slice(start, p)) : undefined;
    const literal = t.slice(start, p);
    if (integer) {
      const big = BigInt(literal);
      if (big >= -maxSafe && big <= maxSafe) return this.build ? Number(big) : undefined;
      if (isInt64(big) || this.opts.beyondInt64 === 'exact') {
        this.needsBuild = true;
        return big;
      }
    }
    const n = Number(literal);
    if (!Number.isFinite(n)) {
      this.pos = start;
      this.fail('number', `json: cannot unmarshal number ${literal} into Go value of type float64`);
    }
    return n;
  }
}
