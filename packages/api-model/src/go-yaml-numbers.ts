/**
 * Plain scalars that go-yaml v2 (sigs.k8s.io/yaml, so kubectl and kube-apiserver) reads as numbers,
 * as a tag of the yaml library. Its YAML 1.1 schema is close but not the same: it reads `.` as
 * NaN and `._5` or `.5_0` as 0.5, and `1e999` as Infinity, where go-yaml keeps all of them strings
 * (strconv.ParseFloat refuses them), and it keeps `0o17` a string where go-yaml reads 15.
 *
 * go-yaml's `resolve` (resolve.go): the first character is the hint. After `.`, the text must
 * parse whole as a float; after a digit or a sign, underscores are dropped and the text is tried
 * as an int64 (Go's base prefixes `0x`, `0o`, `0b` and a leading `0` for octal), as a uint64, then
 * as a float of the form `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, then as `0b`
 * binary. A float out of float64's range is a ParseFloat error there, so the text stays a string.
 * `.inf`, `.nan` and their spellings are in go-yaml's table and resolve to ±Inf and NaN.
 */
import type { ScalarTag } from 'yaml';

const specialFloats: Record<string, number> = {};
for (const spelling of ['.nan', '.NaN', '.NAN']) specialFloats[spelling] = NaN;
for (const spelling of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) specialFloats[spelling] = Infinity;
for (const spelling of ['-.inf', '-.Inf', '-.INF']) specialFloats[spelling] = -Infinity;

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;
const maxUint64 = 2n ** 64n - 1n;

/** Go's strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) on text without underscores. */
function parseGoInteger(text: string, signed: boolean): bigint | undefined {
  const match = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!match) return undefined;
  const [, sign, digits] = match as unknown as [string, string, string];
  if (!signed && sign !== '') return undefined;
  const lower = digits.toLowerCase();
  let magnitude: bigint;
  if (lower.startsWith('0x') || lower.startsWith('0o') || lower.startsWith('0b')) magnitude = BigInt(lower);
  else if (lower.length > 1 && lower.startsWith('0')) magnitude = BigInt(`0o${lower.slice(1)}`);
  else magnitude = BigInt(lower);
  const value = sign === '-' ? -magnitude : magnitude;
  if (signed) return value >= minInt64 && value <= maxInt64 ? value : undefined;
  return value <= maxUint64 ? value : undefined;
}

/** Go's strconv.ParseFloat(s, 64) for decimal text already known to be well formed. */
function parseGoFloat(text: string): number | undefined {
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** Go's strconv.ParseInt(s, 2, 64): a sign, then binary digits. */
function parseGoBinary(text: string): bigint | undefined {
  const match = /^([-+]?)([01]+)$/.exec(text);
  if (!match) return undefined;
  const magnitude = BigInt(`0b${match[2]!}`);
  const value = match[1] === '-' ? -magnitude : magnitude;
  return value >= minInt64 && value <= maxInt64 ? value : undefined;
}

/** What go-yaml v2 makes of a plain scalar starting with `.`, a digit or a sign; the text itself when a string. */
export function resolveGoYamlNumber(text: string): number | bigint | string {
  const special = specialFloats[text];
  if (special !== undefined) return special;
  if (text.startsWith('.')) {
    if (!/^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text)) return text;
    return parseGoFloat(text) ?? text;
  }
  const plain = text.replaceAll('_', '');
  const integer = parseGoInteger(plain, true) ?? parseGoInteger(plain, false);
  if (integer !== undefined) return integer;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(plain)) {
    const float = parseGoFloat(plain);
    if (float !== undefined) return float;
  }
  // go-yaml's own binary branch, after Go's base-0 parse: it reads the rest with a sign of its own.
  let binary: bigint | undefined;
  if (plain.startsWith('0b')) binary = parseGoBinary(plain.slice(2));
  else if (plain.startsWith('-0b')) {
    const magnitude = parseGoBinary(plain.slice(3));
    binary = magnitude === undefined ? undefined : -magnitude;
  }
  return binary ?? text;
}

/**
 * The tag that reads plain scalars as go-yaml v2 does ({@link resolveGoYamlNumber}); integers come
 * back as bigint with the parser's `intAsBigInt` (the decoder turns them into numbers where exact)
 * and as numbers without it, as the library's own int tag does; floats as numbers, and text
 * go-yaml keeps as a string comes back as that string.
 */
export const goYamlNumberTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:int',
  default: true,
  identify: () => false,
  test: /^[-+0-9.]/,
  resolve: (text: string, _onError: unknown, options: { intAsBigInt?: boolean }) => {
    const value = resolveGoYamlNumber(text);
    return typeof value === 'bigint' && !options.intAsBigInt ? Number(value) : value;
  },
};
