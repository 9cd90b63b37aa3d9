/**
 * Go's `time.Duration` as text: `time.ParseDuration` and `Duration.String()`, which Kubernetes uses
 * for metav1.Duration fields (`timeout: 3s`, `authorizedTTL: 1h30m`), duration flags
 * (`--request-timeout=1m0s`) and the `timeout` query parameter. Durations are nanoseconds in a
 * bigint, as Go's int64.
 */

const unitNanos: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const limit = 1n << 63n;

/** The result of {@link parseGoDuration}: nanoseconds, or Go's error text. */
export type ParsedDuration = { ok: true; nanoseconds: bigint } | { ok: false; error: string };

/**
 * Go's `time.ParseDuration`: `300ms`, `-1.5h`, `2h45m`; `0` alone needs no unit. Errors are Go's
 * texts (`time: unknown unit "d" in duration "5d"`); callers that name a flag or a field wrap them.
 */
export function parseGoDuration(text: string): ParsedDuration {
  const invalid = (): ParsedDuration => ({ ok: false, error: `time: invalid duration ${timeQuote(text)}` });
  let s = text;
  let negative = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanoseconds: 0n };
  if (s === '') return invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]!))) return invalid();
    let i = 0;
    let whole = 0n;
    for (; i < s.length && isDigit(s[i]!); i++) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > limit) return invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction keeps its digits while they fit (Go's leadingFraction stops adding precision).
    let fraction = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      let overflow = false;
      for (i = 1; i < s.length && isDigit(s[i]!); i++) {
        if (overflow) continue;
        const next = fraction * 10n + BigInt(s.charCodeAt(i) - 48);
        if (fraction > (limit - 1n) / 10n || next > limit) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      post = i > 1;
      s = s.slice(i);
    }
    if (!pre && !post) return invalid();
    i = 0;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i]!)) i++;
    if (i === 0) return { ok: false, error: `time: missing unit in duration ${timeQuote(text)}` };
    const unitText = s.slice(0, i);
    s = s.slice(i);
    const unit = unitNanos[unitText];
    if (unit === undefined) return { ok: false, error: `time: unknown unit ${timeQuote(unitText)} in duration ${timeQuote(text)}` };
    if (whole > limit / unit) return invalid();
    let value = whole * unit;
    if (fraction > 0n) {
      // float64, as Go computes it (nanosecond-exact for fractions of an hour).
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > limit) return invalid();
    }
    total += value;
    if (total > limit) return invalid();
  }
  if (negative) return { ok: true, nanoseconds: -total };
  if (total > limit - 1n) return invalid();
  return { ok: true, nanoseconds: total };
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

const utf8 = new TextEncoder();

/**
 * The time package's own quoting for its error texts (not strconv.Quote): `"` and `\` escaped,
 * every byte of a non-ASCII or control character written as `\xNN`.
 */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of utf8.encode(ch)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

function formatFraction(value: bigint, digits: number): string {
  const text = value.toString().padStart(digits, '0').replace(/0+$/, '');
  return text ? `.${text}` : '';
}

/** Go's `Duration.String()`: `5m0s`, `1h30m0s`, `300ms`, `1.5s`, `0s`. */
export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const negative = nanoseconds < 0n;
  let n = negative ? -nanoseconds : nanoseconds;
  const sign = negative ? '-' : '';
  if (n < 1_000_000_000n) {
    if (n < 1_000n) return `${sign}${n}ns`;
    if (n < 1_000_000n) return `${sign}${n / 1_000n}${formatFraction(n % 1_000n, 3)}µs`;
    return `${sign}${n / 1_000_000n}${formatFraction(n % 1_000_000n, 6)}ms`;
  }
  const hours = n / 3_600_000_000_000n;
  n %= 3_600_000_000_000n;
  const minutes = n / 60_000_000_000n;
  n %= 60_000_000_000n;
  const seconds = `${n / 1_000_000_000n}${formatFraction(n % 1_000_000_000n, 9)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

/** Nanoseconds as milliseconds for timers and clocks (fractions of a millisecond kept). */
export function nanosecondsToMilliseconds(nanoseconds: bigint): number {
  return Number(nanoseconds) / 1e6;
}

/** Milliseconds (as timers hold them) as nanoseconds, for {@link formatGoDuration}. */
export function millisecondsToNanoseconds(ms: number): bigint {
  return BigInt(Math.round(ms * 1e6));
}
