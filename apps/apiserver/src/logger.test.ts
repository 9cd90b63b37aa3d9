import { createLogger } from './logger.js';

describe('logger', () => {
  const at = new Date(Date.UTC(2026, 10, 22, 5, 50, 10, 123));

  it('writes klog text lines and drops lines above the verbosity', () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'text', verbosity: 1, write: (l) => lines.push(l), now: () => at });
    log.info('Serving securely', { address: 'https://127.0.0.1:6443', port: 6443 }, 0);
    log.info('request', { verb: 'GET' }, 2);
    log.error('boom', { err: new Error('bad') });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^I1122 05:50:10\.123000 +\d+\] "Serving securely" address="https:\/\/127\.0\.0\.1:6443" port=6443\n$/);
    expect(lines[1]).toMatch(/^E1122 .*\] "boom" err="bad"\n$/);
    // The server asks before building a line (the per-request line at 2 is then never built).
    expect(log.enabled(0)).toBe(true);
    expect(log.enabled(1)).toBe(true);
    expect(log.enabled(2)).toBe(false);
  });

  it('writes JSON lines with ts, v and msg', () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'json', verbosity: 2, write: (l) => lines.push(l), now: () => at });
    log.info('HTTP', { verb: 'GET', code: 200 }, 2);
    expect(JSON.parse(lines[0])).toEqual({ ts: at.getTime() / 1000, v: 2, msg: 'HTTP', verb: 'GET', code: 200 });
  });
});
