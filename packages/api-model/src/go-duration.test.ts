import { formatGoDuration, millisecondsToNanoseconds, nanosecondsToMilliseconds, parseGoDuration } from './go-duration.js';

const ns = (s: string) => {
  const r = parseGoDuration(s);
  return r.ok ? r.nanoseconds : r.error;
};

describe('Go durations', () => {
  it('parses what time.ParseDuration parses', () => {
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

  // The `timeout` query parameter (server filter) and the duration flags (apiserver) read these.
  it.each([
    ['32s', 32_000],
    ['1m0s', 60_000],
    ['1h2m3s', 3_723_000],
    ['1h2m3.5s', 3_723_500],
    ['60s', 60_000],
    ['500ms', 500],
    ['250ms', 250],
    ['1.5s', 1500],
    ['0', 0],
  ])('%s is %d ms', (text, ms) => {
    const r = parseGoDuration(text);
    expect(r.ok && nanosecondsToMilliseconds(r.nanoseconds)).toBe(ms);
  });

  it.each(['', '5', 's', '1x', '1s junk', '5x'])('rejects %j', (text) => {
    expect(parseGoDuration(text).ok).toBe(false);
  });

  it('answers Go error texts, quoting as the time package does', () => {
    expect(ns('5x')).toBe('time: unknown unit "x" in duration "5x"');
    expect(ns('1s junk')).toBe('time: unknown unit "s junk" in duration "1s junk"');
    expect(ns('3日')).toBe('time: unknown unit "\\xe6\\x97\\xa5" in duration "3\\xe6\\x97\\xa5"');
    expect(ns('"1"s')).toBe('time: invalid duration "\\"1\\"s"');
    expect(ns('+')).toBe('time: invalid duration "+"');
    expect(ns('-0')).toBe(0n);
    expect(ns('+1.s')).toBe(1_000_000_000n);
    expect(ns('.5m')).toBe(30_000_000_000n);
    expect(ns('1h1h')).toBe(7_200_000_000_000n);
  });

  it("keeps int64's range and Go's float64 fractions", () => {
    expect(ns('9223372036854775807ns')).toBe(9_223_372_036_854_775_807n);
    expect(ns('9223372036854775808ns')).toBe('time: invalid duration "9223372036854775808ns"');
    expect(ns('-9223372036854775808ns')).toBe(-9_223_372_036_854_775_808n);
    expect(ns('2562047h47m16.854775807s')).toBe(9_223_372_036_854_775_807n);
    expect(ns('2562048h')).toBe('time: invalid duration "2562048h"');
    expect(ns('0.3333333333333333333h')).toBe(1_200_000_000_000n);
    expect(ns('1.000000000000000000001s')).toBe(1_000_000_000n);
    expect(ns('0.100000000000000000000h')).toBe(360_000_000_000n);
    expect(ns('0.830103483285477580700h')).toBe(2_988_372_539_827n);
    expect(ns('-9223372036854775809ns')).toBe('time: invalid duration "-9223372036854775809ns"');
  });

  it('formats like Duration.String()', () => {
    expect(formatGoDuration(0n)).toBe('0s');
    expect(formatGoDuration(300_000_000_000n)).toBe('5m0s');
    expect(formatGoDuration(5_400_000_000_000n)).toBe('1h30m0s');
    expect(formatGoDuration(1_500_000_000n)).toBe('1.5s');
    expect(formatGoDuration(300_000_000n)).toBe('300ms');
    expect(formatGoDuration(-31_000_000_000n)).toBe('-31s');
    expect(formatGoDuration(1_500n)).toBe('1.5µs');
    expect(formatGoDuration(millisecondsToNanoseconds(60_000))).toBe('1m0s');
    expect(formatGoDuration(millisecondsToNanoseconds(1500))).toBe('1.5s');
    expect(formatGoDuration(millisecondsToNanoseconds(3_723_000))).toBe('1h2m3s');
  });
});
