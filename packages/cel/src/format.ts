/**
 * `"...".format([args])` of cel-go's strings extension (version 2+): the clauses %s %d %f %e %b
 * %x %X %o, a precision for %f and %e (default 6), `%%`, and cel-go's error texts.
 */
import { EvaluationError } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { formatDuration, formatTimestamp } from './standard-library.js';
import { celTypeOf } from './values.js';

function fail(message: string): never {
  throw new EvaluationError(message);
}

function formattingError(message: string, value: unknown): never {
  return fail(`error during formatting: ${message}, was given ${celTypeOf(value)}`);
}

/** An int or uint as a bigint, else undefined. */
function integer(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (value instanceof UnsignedInt) return value.valueOf();
  return undefined;
}

function special(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return undefined;
}

/** Fixed-point with Go's rounding: ties go to the even digit (`%.0f` of 2.5 is "2"). */
function fixed(value: number, precision: number): string {
  const rounded = value.toFixed(precision);
  const exact = Math.abs(value).toFixed(100);
  const dot = exact.indexOf('.');
  if (!/^50*$/.test(exact.slice(dot + 1 + precision))) return rounded;
  const truncated = exact.slice(0, precision ? dot + 1 + precision : dot);
  if (Number(truncated.at(-1)) % 2 === 1) return rounded;
  return (value < 0 ? '-' : '') + truncated;
}

/** Scientific notation as Go prints it: at least two exponent digits (`1.052033e+03`). */
function scientific(value: number, precision: number): string {
  return value.toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2');
}

function asDouble(value: unknown, clause: string): number {
  const n = integer(value);
  if (n !== undefined) return Number(n);
  if (typeof value === 'number') return value;
  return formattingError(`${clause} clause can only be used on ints, uints, and doubles`, value);
}

/** `%s` of one value, as cel-go's string clause prints it. */
function formatString(value: unknown): string {
  if (typeof value === 'string') return value;
  const n = integer(value);
  if (n !== undefined) return n.toString();
  if (typeof value === 'number') return special(value) ?? String(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Date) return formatTimestamp(value);
  if (value instanceof Duration) return formatDuration(value);
  if (Array.isArray(value) || value instanceof Set) return `[${[...value].map(formatString).join(', ')}]`;
  if (value instanceof Map || (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)) {
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    const printed = entries.map(([k, v]) => [formatString(k), formatString(v)] as const);
    printed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${printed.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
  }
  if (value && typeof value === 'object' && value.constructor?.name === 'Type' && 'name' in value) {
    const name = String(value.name);
    return name === 'null' ? 'null_type' : name;
  }
  return formattingError('string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps', value);
}

function formatClause(value: unknown, verb: string, precision: number | undefined): string {
  switch (verb) {
    case 's':
      return formatString(value);
    case 'd': {
      const n = integer(value);
      if (n !== undefined) return n.toString();
      if (typeof value === 'number' && special(value)) return special(value)!;
      return formattingError('decimal clause can only be used on ints, uints, and doubles', value);
    }
    case 'f': {
      const d = asDouble(value, 'fixed-point');
      return special(d) ?? fixed(d, precision ?? 6);
    }
    case 'e': {
      const d = asDouble(value, 'scientific');
      return special(d) ?? scientific(d, precision ?? 6);
    }
    case 'b': {
      const n = integer(value);
      if (n !== undefined) return n.toString(2);
      if (typeof value === 'boolean') return value ? '1' : '0';
      return formattingError('only ints, uints, and bools can be formatted as binary', value);
    }
    case 'o': {
      const n = integer(value);
      if (n !== undefined) return n.toString(8);
      return formattingError('octal clause can only be used on ints and uints', value);
    }
    case 'x':
    case 'X': {
      const n = integer(value);
      let hex: string;
      if (n !== undefined) hex = n < 0n ? `-${(-n).toString(16)}` : n.toString(16);
      else if (typeof value === 'string') hex = Buffer.from(value, 'utf8').toString('hex');
      else if (value instanceof Uint8Array) hex = Buffer.from(value).toString('hex');
      else return formattingError('only ints, uints, bytes, and strings can be formatted as hex', value);
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
    default:
      return fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** Formats `template` with `args` as cel-go's `string.format(list)` does. */
export function format(template: string, args: readonly unknown[]): string {
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    i++;
    if (template[i] === '%') {
      out += '%';
      continue;
    }
    let precision: number | undefined;
    if (template[i] === '.') {
      let digits = '';
      i++;
      while (i < template.length && template[i]! >= '0' && template[i]! <= '9') digits += template[i++];
      precision = Number(digits || '0');
    }
    const verb = template[i];
    if (verb === undefined) fail('could not parse formatting clause: unexpected end of string');
    if (argIndex >= args.length) fail(`index ${argIndex} out of range`);
    out += formatClause(args[argIndex++], verb, precision);
  }
  return out;
}
