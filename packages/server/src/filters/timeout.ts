import { newTimeout } from '@plat/api-model';
import type { Filter } from '../context.js';
import { writeError } from '../response.js';

/** Go's time.ParseDuration for the `timeout` query parameter ("30s", "1m0s", "500ms"). */
export function parseGoDuration(text: string): number | undefined {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * units[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched !== text.length || text.length === 0) return undefined;
  return total;
}

/**
 * Kubernetes' request timeout: a non-long-running request that has not answered within the
 * server's --request-timeout (or the shorter `timeout` query parameter) gets 504 Timeout and its
 * work is cancelled through the request's AbortSignal.
 */
export function withRequestTimeout(requestTimeoutMs: number): Filter {
  return (next) => (ctx) => {
    if (ctx.longRunning || requestTimeoutMs <= 0) return next(ctx);
    let timeoutMs = requestTimeoutMs;
    const param = ctx.query.get('timeout');
    if (param) {
      const requested = parseGoDuration(param);
      if (requested !== undefined && requested > 0 && requested < timeoutMs) timeoutMs = requested;
    }
    // One promise per request, settled by whichever comes first: the handler or the timer
    // (no Promise.race over extra promises; this runs on every request).
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        const err = newTimeout('request did not complete within requested timeout - context deadline exceeded', 0);
        writeError(ctx, err);
        ctx.abort(err);
        resolve();
      }, timeoutMs);
      next(ctx).then(
        () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          // After a timeout the handler still runs to its end (its late answer is dropped);
          // its outcome is swallowed.
          if (done) return;
          done = true;
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}
