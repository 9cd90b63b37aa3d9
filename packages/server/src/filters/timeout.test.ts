import { timeoutParameterMs } from './timeout.js';

describe('timeoutParameterMs', () => {
  it.each([
    ['32s', 32_000],
    ['1m0s', 60_000],
    ['1h2m3s', 3_723_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['0', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(timeoutParameterMs(text)).toBe(ms);
  });

  it.each(['', '5', 's', '1x', '1s junk'])('rejects %j', (text) => {
    expect(timeoutParameterMs(text)).toBeUndefined();
  });
});
