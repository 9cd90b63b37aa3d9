import { ServerRequestContext, splitRequestTarget, type IncomingRequest, type OutgoingResponse } from '../context.js';
import { DeadlineTimers, timeoutParameterMs, withRequestTimeout } from './timeout.js';

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

describe('withRequestTimeout', () => {
  // The deadline is worked out from the timer when read, not taken per request.
  it.each([
    ['/apis/g/v1/things', 30_000],
    ['/apis/g/v1/things?timeout=5s', 5_000],
  ])('gives %s the deadline of its timeout (%d ms), in ms since the epoch', async (target, ms) => {
    const res = { writableEnded: false } as unknown as OutgoingResponse;
    const ctx = new ServerRequestContext({} as IncomingRequest, res, 'GET', splitRequestTarget(target), 'id', 0n);
    let seen: number | undefined;
    const before = Date.now();
    await withRequestTimeout(30_000, new DeadlineTimers())(async (c) => {
      seen = c.deadline;
    })(ctx);
    const after = Date.now();
    ctx.timer!.stop();
    expect(seen).toBeGreaterThanOrEqual(before + ms - 2);
    expect(seen).toBeLessThanOrEqual(after + ms + 2);
    expect(ctx.deadline).toBe(seen);
  });

  it('gives a long-running request no deadline', async () => {
    const ctx = new ServerRequestContext({} as IncomingRequest, { writableEnded: false } as unknown as OutgoingResponse, 'GET', splitRequestTarget('/x'), 'id', 0n);
    ctx.longRunning = true;
    await withRequestTimeout(30_000, new DeadlineTimers())(async () => {})(ctx);
    expect(ctx.deadline).toBeUndefined();
  });
});
