import { newBadRequest, newForbidden, newForbiddenMessage } from '@plat/api-model';
import { ImpersonationError, hasImpersonationHeaders, impersonate, type Authorizer } from '@plat/auth';
import type { Filter, Handler, RequestContext } from '../context.js';
import { writeError } from '../response.js';
import { auditUser } from './audit.js';
import { hasHeaderWithPrefix } from './authentication.js';

/**
 * Kubernetes' impersonation filter: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*` are
 * each checked with verb `impersonate`; the request then runs as the impersonated user.
 */
export function withImpersonation(authorizer: Authorizer): Filter {
  // A request without Impersonate-* headers gets the next handler's promise as it is: an async
  // function returning it cost a promise and two more microtask turns each request (45-61 ns in
  // promise-hops.mjs; docs/performance.md "apiserver").
  return (next) => (ctx) => (hasHeaderWithPrefix(ctx, 'impersonate-') ? impersonated(next, ctx) : next(ctx));

  async function impersonated(next: Handler, ctx: RequestContext): Promise<void> {
    const headers = ctx.headerLists;
    if (!hasImpersonationHeaders(headers)) return next(ctx);
    try {
      const user = await impersonate(ctx.user!, headers, authorizer, ctx);
      if (user) {
        ctx.user = user;
        ctx.audit?.logImpersonatedUser(auditUser(user));
      }
    } catch (err) {
      if (err instanceof ImpersonationError) {
        if (err.kind === 'BadRequest') {
          // A group, uid or extra without a user: 400, as Kubernetes' buildImpersonationRequests.
          writeError(ctx, newBadRequest(err.message));
          return;
        }
        const a = err.attributes;
        const detail = err.message;
        writeError(
          ctx,
          a && a.resource ? newForbidden({ group: a.apiGroup, resource: a.resource }, a.name, detail) : newForbiddenMessage(`forbidden: ${detail}`),
        );
        return;
      }
      writeError(ctx, newBadRequest((err as Error).message));
      return;
    }
    for (const name of Object.keys(ctx.req.headers)) {
      if (name.startsWith('impersonate-')) delete ctx.req.headers[name];
    }
    await next(ctx);
  }
}
