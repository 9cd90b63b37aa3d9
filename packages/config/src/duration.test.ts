import { formatGoDuration, parseGoDuration } from './duration.js';

describe('Go durations', () => {
  it('parses what time.ParseDuration parses', () => {
    const ns = (s: string) => {
      const r = parseGoDuration(s);
      return r.ok ? r.nanoseconds : r.error;
    };
    expect(ns('0')).toBe(0n);
    expect(ns('5m')).toBe(300_000_000_000n);
    expect(ns('1h30m')).toBe(5_400_000_000_000n);
    expect(ns('1.5s')).toBe(1_500_000_000n);
    expect(ns('300ms')).toBe(300_000_000n);
    expect(ns('10us')).toBe(10_000n);
    expect(ns('10µs')).toBe(10_000n);
    expect(ns('-2s')).toBe(-2_000_000_000n);
    expect(ns('')).toBe('time: invalid duration ""');
    expect(ns('5')).toBe('time: missing unit in duration "5"');
    expect(ns('5d')).toBe('time: unknown unit "d" in duration "5d"');
    expect(ns('.s')).toBe('time: invalid duration ".s"');
  });

  it('formats like Duration.String()', () => {
    expect(formatGoDuration(0n)).toBe('0s');
    expect(formatGoDuration(300_000_000_000n)).toBe('5m0s');
    expect(formatGoDuration(5_400_000_000_000n)).toBe('1h30m0s');
    expect(formatGoDuration(1_500_000_000n)).toBe('1.5s');
    expect(formatGoDuration(300_000_000n)).toBe('300ms');
    expect(formatGoDuration(-31_000_000_000n)).toBe('-31s');
    expect(formatGoDuration(1_500n)).toBe('1.5µs');
  });
});
