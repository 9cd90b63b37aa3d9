import { StatusError, StatusReason } from '@plat/api-model';
import type { Filter, RequestContext } from '../context.js';
import type { ServerLogger } from '../logger.js';
import { writeError } from '../response.js';
import { panicRequestAudit } from './audit.js';

/**
 * The outermost filter: anything a handler throws that nobody turned into a Status becomes a 500
 * (Kubernetes' panic recovery), and the server keeps serving. An audited request's event goes out
 * at Panic first, with what was thrown.
 */
export function withPanicRecovery(logger: ServerLogger): Filter {
  const recover = (ctx: RequestContext, err: unknown): void | Promise<void> => {
    // The request's audit event first, at Panic: Kubernetes' audit filter records it before the
    // panic reaches recovery (filters/audit.ts leaves the last stage to this filter and accounting).
    const ra = ctx.audit;
    const audited = ra !== undefined ? panicRequestAudit(ra, err) : true;
    logger.error('request caused a panic', {
      method: ctx.method,
      URI: ctx.url.pathname + ctx.url.search,
      auditID: ctx.auditId,
      err: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    if (ctx.res.headersSent) {
      // Mid-stream: the only honest signal left is to cut the connection. After the end (a
      // handler that failed after its request's 504, filters/timeout.ts) there is none to give:
      // the response is complete, and an HTTP/1.1 connection goes on to its next request.
      if (!ctx.res.writableEnded) ctx.res.destroy?.();
    } else {
      writeError(
        ctx,
        new StatusError({
          code: 500,
          reason: StatusReason.InternalError,
          message: 'This request caused apiserver to panic. Look in the logs for details.',
        }),
      );
    }
    if (typeof audited !== 'boolean') return audited.then(() => undefined);
  };
  // The handler's promise with a rejection handler, not an async function with try/await around
  // it: 35-38 ns a request over the handler's own instead of 79-84 (promise-hops.mjs, load 12;
  // docs/performance.md, "apiserver").
  return (next) => (ctx) => {
    let pending: Promise<void>;
    try {
      pending = next(ctx);
    } catch (err) {
      // As an async function would: what the handler threw, and anything this throws, settle
      // the returned promise; nothing is thrown to the caller.
      try {
        return recover(ctx, err) ?? Promise.resolve();
      } catch (failure) {
        return Promise.reject(failure as Error);
      }
    }
    return pending.then(undefined, (err: unknown) => recover(ctx, err));
  };
}
