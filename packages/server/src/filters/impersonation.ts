import { newBadRequest, newForbidden, newForbiddenMessage } from '@plat/api-model';
import { ImpersonationError, hasImpersonationHeaders, impersonate, type Authorizer } from '@plat/auth';
import type { Filter } from '../context.js';
import { writeError } from '../response.js';
import { auditUser } from './audit.js';
import { hasHeaderWithPrefix } from './authentication.js';

/**
 * Kubernetes' impersonation filter: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*` are
 * each checked with verb `impersonate`; the request then runs as the impersonated user.
 */
export function withImpersonation(authorizer: Authorizer): Filter {
  return (next) => async (ctx) => {
    if (!hasHeaderWithPrefix(ctx, 'impersonate-')) return next(ctx);
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
  };
}
