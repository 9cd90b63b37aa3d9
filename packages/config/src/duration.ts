/**
 * Go's `time.ParseDuration` and `Duration.String()`, which Kubernetes uses for metav1.Duration
 * fields such as `timeout: 3s` or `authorizedTTL: 1h30m`.
 */

const unitNanos: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxNanos = 2n ** 63n - 1n;

export type ParsedDuration = { ok: true; nanoseconds: bigint } | { ok: false; error: string };

/** Parses `300ms`, `-1.5h`, `2h45m`; `0` alone needs no unit. Errors read like Go's. */
export function parseGoDuration(text: string): ParsedDuration {
  const quoted = JSON.stringify(text);
  const invalid = (): ParsedDuration => ({ ok: false, error: `time: invalid duration ${quoted}` });
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanoseconds: 0n };
  if (s === '') return invalid();
  let total = 0n;
  while (s !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (!number || (whole === '' && (fraction === undefined || fraction === ''))) return invalid();
    s = s.slice(number[0].length);
    const unit = /^[^\d.]+/.exec(s)?.[0];
    if (!unit) return { ok: false, error: `time: missing unit in duration ${quoted}` };
    const scale = unitNanos[unit];
    if (scale === undefined) return { ok: false, error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    s = s.slice(unit.length);
    let value = BigInt(whole || '0') * scale;
    if (fraction) {
      const digits = BigInt(fraction);
      const divisor = 10n ** BigInt(fraction.length);
      value += (digits * scale) / divisor;
    }
    total += value;
    if (total > maxNanos) return invalid();
  }
  return { ok: true, nanoseconds: negative ? -total : total };
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

/** Whole milliseconds of a duration (rounded down), for timers. */
export function toMilliseconds(nanoseconds: bigint): number {
  return Number(nanoseconds / 1_000_000n);
}
