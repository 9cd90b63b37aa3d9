import { goQuote, goQuoteList } from './go-quote.js';

describe("goQuote (Go's strconv.Quote)", () => {
  it.each([
    ['', '""'],
    ['plain text', '"plain text"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\x00\x07\b\f\n\r\t\v\x1b\x7f', '"\\x00\\a\\b\\f\\n\\r\\t\\v\\x1b\\x7f"'],
    ['héllo 世界 😀', '"héllo 世界 😀"'],
    // Not printable for Go: C1 controls, no-break space, soft hyphen, zero-width space, line separator, BOM.
    ['\u0085\u00a0\u00ad\u200b\u2028\ufeff', '"\\u0085\\u00a0\\u00ad\\u200b\\u2028\\ufeff"'],
    ['\u{e0001}\u{10ffff}', '"\\U000e0001\\U0010ffff"'],
    ['\ufffd', '"\ufffd"'],
    ['a\ud800b', '"a\ufffdb"'],
  ])('%j is %s', (value, quoted) => {
    expect(goQuote(value)).toBe(quoted);
  });

  it('quotes a list as %q of a []string', () => {
    expect(goQuoteList(['a', 'b"c'])).toBe('["a" "b\\"c"]');
    expect(goQuoteList([])).toBe('[]');
  });
});
