import { hrtime } from 'node:process';
import type { Filter, Handler, RequestContext } from '../context.js';
import type { ServerLogger } from '../logger.js';

/** One structured line per request at verbosity 2, as kube-apiserver's httplog writes it. */
export function withRequestLog(logger: ServerLogger): Filter {
  return (next) => (ctx) => (logger.enabled && !logger.enabled(2) ? next(ctx) : logged(next, ctx));

  async function logged(next: Handler, ctx: RequestContext): Promise<void> {
    try {
      await next(ctx);
    } finally {
      const latencyMs = Number(hrtime.bigint() - ctx.startTime) / 1e6;
      const fields: Record<string, unknown> = {
        verb: ctx.method,
        URI: ctx.url.pathname + ctx.url.search,
        latency: `${latencyMs.toFixed(3)}ms`,
        userAgent: String(ctx.req.headers['user-agent'] ?? ''),
        audit_ID: ctx.auditId,
        srcIP: `${ctx.req.socket.remoteAddress ?? ''}:${ctx.req.socket.remotePort ?? ''}`,
        resp: ctx.res.statusCode,
      };
      if (ctx.user) fields['user'] = ctx.user.username;
      if (ctx.authenticatedUser && ctx.user && ctx.authenticatedUser !== ctx.user) fields['impersonatedBy'] = ctx.authenticatedUser.username;
      logger.info('HTTP', fields, 2);
    }
  }
}
