/**
 * Go's time.ParseDuration, for flags Kubernetes declares as durations (`--request-timeout=1m0s`):
 * a sequence of decimal numbers with units ns, us (µs), ms, s, m, h; "0" alone is allowed.
 * Answers milliseconds; throws with Go's message.
 */
const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseGoDuration(input: string): number {
  const quoted = JSON.stringify(input);
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s[0] === '-' ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s.length > 0) {
    const num = /^(\d*)(\.\d*)?/.exec(s);
    if (!num || (num[1] === '' && (num[2] === undefined || num[2] === '.'))) throw new Error(`time: invalid duration ${quoted}`);
    s = s.slice(num[0].length);
    const unit = /^[^\d.]+/.exec(s);
    if (!unit) throw new Error(`time: missing unit in duration ${quoted}`);
    const factor = unitMs[unit[0]];
    if (factor === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit[0])} in duration ${quoted}`);
    s = s.slice(unit[0].length);
    total += Number(num[0]) * factor;
  }
  return sign * total;
}

/** Go's Duration.String for whole milliseconds: 1m0s, 1.5s, 300ms, 0s. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
