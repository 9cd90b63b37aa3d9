import { StatusError, StatusReason } from '@plat/api-model';
import type { Filter } from '../context.js';
import type { ServerLogger } from '../logger.js';
import { writeError } from '../response.js';

/**
 * The outermost filter: anything a handler throws that nobody turned into a Status becomes a 500
 * (Kubernetes' panic recovery), and the server keeps serving.
 */
export function withPanicRecovery(logger: ServerLogger): Filter {
  return (next) => async (ctx) => {
    try {
      await next(ctx);
    } catch (err) {
      logger.error('request caused a panic', {
        method: ctx.method,
        URI: ctx.url.pathname + ctx.url.search,
        auditID: ctx.auditId,
        err: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      if (ctx.res.headersSent) {
        // Mid-stream: the only honest signal left is to cut the connection.
        ctx.res.destroy?.();
        return;
      }
      writeError(
        ctx,
        new StatusError({
          code: 500,
          reason: StatusReason.InternalError,
          message: 'This request caused apiserver to panic. Look in the logs for details.',
        }),
      );
    }
  };
}
