/**
 * Functions of Kubernetes' CEL environment that cel-js does not ship, registered on our
 * environments: the rest of the strings extension (charAt, format, quote, replace, reverse), the
 * Kubernetes list library (isSorted, sum, min, max, indexOf, lastIndexOf), the sets extension,
 * the regex library (find, findAll), the base64 encoders and optional.ofNonZeroValue.
 * Semantics follow cel-go's extensions; where a function errors there, it throws here.
 */
import { Environment, EvaluationError, Optional } from '@marcbachmann/cel-js';
import { celEquals } from './corrections.js';
import { format } from './format.js';
import { re2Guard, re2Matches } from './regex.js';

type Handler = (...args: never[]) => unknown;

/** Marker classes for the `strings.`, `sets.` and `base64.` namespaces. */
class StringsNamespace {}
class SetsNamespace {}
class Base64Namespace {}

function fail(message: string): never {
  throw new EvaluationError(message);
}

function codePoints(s: string): string[] {
  return Array.from(s);
}

function replaceN(s: string, from: string, to: string, n: bigint): string {
  if (n === 0n) return s;
  if (n < 0n && from !== '') return s.split(from).join(to);
  let out = '';
  let rest = s;
  let count = 0n;
  if (from === '') {
    // Go's strings.Replace inserts `to` before every code point (and at the end) when `from` is empty.
    const cps = codePoints(s);
    for (let i = 0; i <= cps.length; i++) {
      if (n < 0n || count < n) {
        out += to;
        count++;
      }
      if (i < cps.length) out += cps[i];
    }
    return out;
  }
  while (count < n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    count++;
  }
  return out + rest;
}

/** `strings.quote`: a CEL string literal for the value, as cel-go writes it. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\x07':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      default:
        out += ch;
    }
  }
  return `${out}"`;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return fail('no such overload');
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [...(value as Iterable<unknown>)]);

function isZeroValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (value === false || value === '' || value === 0 || value === 0n) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (value instanceof Uint8Array) return value.length === 0;
  if (value instanceof Map) return value.size === 0;
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.keys(value).length === 0;
  return false;
}

/**
 * A JavaScript RegExp for an RE2 pattern, for extracting matches once RE2 has found one. RE2's
 * leading flag group (`(?i)`, `(?s)`, `(?m)`, `(?U)` is not supported) becomes RegExp flags.
 */
function jsRegExp(pattern: string, extraFlags: string): RegExp {
  let flags = `u${extraFlags}`;
  let source = pattern;
  const group = /^\(\?([ims]+)\)/.exec(source);
  if (group) {
    for (const f of group[1]!) if (!flags.includes(f)) flags += f;
    source = source.slice(group[0].length);
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    return fail(`invalid regular expression: ${(error as Error).message}`);
  }
}

function findAll(s: string, pattern: string, n: bigint): string[] {
  if (n === 0n || !re2Guard(s, pattern)) return [];
  const out: string[] = [];
  for (const m of s.matchAll(jsRegExp(pattern, 'g'))) {
    out.push(m[0]);
    if (n > 0n && BigInt(out.length) >= n) break;
  }
  return out;
}

/** Registers the extension functions; called once per environment at construction. */
export function registerExtensions(env: Environment, capture: (evaluator: object) => void): void {
  const fn = (signature: string, handler: Handler) => env.registerFunction(signature, handler as never);

  env.registerType('StringsNamespace', StringsNamespace).registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerType('SetsNamespace', SetsNamespace).registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  env.registerType('Base64Namespace', Base64Namespace).registerConstant('base64', 'Base64Namespace', new Base64Namespace());

  // strings extension (cel-go ext.Strings, version 2+)
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) fail(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, from: string, to: string) => replaceN(s, from, to, -1n));
  fn('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => replaceN(s, from, to, n));
  // The evaluator instance is captured through this handler's `this` (see StepMeter.install).
  env.registerFunction('string.reverse(): string', function reverse(this: object, s: string) {
    capture(this);
    return codePoints(s).reverse().join('');
  });
  fn('string.format(list): string', (s: string, args: unknown[]) => format(s, listOf(args)));
  fn('StringsNamespace.quote(string): string', (_ns: StringsNamespace, s: string) => quote(s));

  // Kubernetes list library
  fn('list<A>.isSorted(): bool', (l: unknown[]) => {
    const items = listOf(l);
    for (let i = 1; i < items.length; i++) if (compare(items[i - 1], items[i]) > 0) return false;
    return true;
  });
  fn('list<int>.sum(): int', (l: bigint[]) => listOf(l).reduce<bigint>((a, b) => a + (b as bigint), 0n));
  fn('list<double>.sum(): double', (l: number[]) => listOf(l).reduce<number>((a, b) => a + (b as number), 0));
  for (const kind of ['min', 'max'] as const) {
    fn(`list<A>.${kind}(): A`, (l: unknown[]) => {
      const items = listOf(l);
      if (items.length === 0) fail(`${kind}(list) argument must not be empty`);
      return items.reduce((a, b) => ((kind === 'min' ? compare(b, a) < 0 : compare(b, a) > 0) ? b : a));
    });
  }
  fn('list<A>.indexOf(A): int', (l: unknown[], v: unknown) => BigInt(listOf(l).findIndex((x) => celEquals(x, v))));
  fn('list<A>.lastIndexOf(A): int', (l: unknown[], v: unknown) => {
    const items = listOf(l);
    for (let i = items.length - 1; i >= 0; i--) if (celEquals(items[i], v)) return BigInt(i);
    return -1n;
  });

  // sets extension
  fn('SetsNamespace.contains(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) =>
    listOf(b).every((x) => listOf(a).some((y) => celEquals(x, y))),
  );
  fn('SetsNamespace.equivalent(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => {
    const la = listOf(a);
    const lb = listOf(b);
    return la.every((x) => lb.some((y) => celEquals(x, y))) && lb.every((x) => la.some((y) => celEquals(x, y)));
  });
  fn('SetsNamespace.intersects(list<A>, list<A>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) =>
    listOf(a).some((x) => listOf(b).some((y) => celEquals(x, y))),
  );

  // Regular expressions: RE2 semantics (see regex.ts). The global form of matches is CEL's too.
  fn('matches(string, string): bool', (value: string, pattern: string) => re2Matches(value, pattern));
  fn('string.find(string): string', (s: string, re: string) => (re2Guard(s, re) ? (jsRegExp(re, '').exec(s)?.[0] ?? '') : ''));
  fn('string.findAll(string): list<string>', (s: string, re: string) => findAll(s, re, -1n));
  fn('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => findAll(s, re, n));

  // encoders extension
  fn('Base64Namespace.encode(bytes): string', (_ns: Base64Namespace, b: Uint8Array) => Buffer.from(b).toString('base64'));
  fn('Base64Namespace.decode(string): bytes', (_ns: Base64Namespace, s: string) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) fail('illegal base64 data');
    return new Uint8Array(Buffer.from(s, 'base64'));
  });

  // optional library
  fn('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_ns: unknown, v: unknown) => (isZeroValue(v) ? Optional.none() : Optional.of(v)));
}
