import { newForbidden, newForbiddenMessage, newInternalError, type StatusError } from '@plat/api-model';
import { forbiddenMessage, type Attributes, type AuthorizationResult, type Authorizer, type UserInfo } from '@plat/auth';
import type { Filter, RequestContext } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { writeError } from '../response.js';

/**
 * The group a resource of `group` is its own under: `group`, or, for another name a resource
 * answers to (ResourceDefinition.groups), the resource's own group.
 */
export type OwnGroupOf = (group: string, resource: string) => string;

const sameGroup: OwnGroupOf = (group) => group;

/**
 * The attributes of a request. A request under another name of a resource is authorized as the
 * resource's own: the same objects, the same rules (RBAC matches either name anyway), and one
 * group in every Forbidden message and webhook review.
 */
export function attributesFor(user: UserInfo, info: RequestInfo, ownGroupOf: OwnGroupOf = sameGroup): Attributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    apiGroup: info.isResourceRequest ? ownGroupOf(info.apiGroup, info.resource) : info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    path: info.path,
  };
}

/** The 403 of a denied request, worded as Kubernetes' responsewriters.Forbidden. */
export function forbiddenError(attrs: Attributes, reason: string): StatusError {
  const msg = forbiddenMessage(attrs);
  const text = reason ? `${msg}: ${reason}` : msg;
  if (!attrs.resource) return newForbiddenMessage(`forbidden: ${text}`);
  return newForbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, new Error(text));
}

/** Asks the authorizer about the request; anything but Allow is 403 Forbidden. */
export function withAuthorization(authorizer: Authorizer, ownGroupOf: OwnGroupOf = sameGroup): Filter {
  return (next) => {
    const decided = (ctx: RequestContext, attrs: Attributes, result: AuthorizationResult): Promise<void> => {
      // Kubernetes' annotations (filters/authorization.go): the decision and the authorizer's reason.
      ctx.audit?.addAuthorizationAnnotations(result.decision === 'Allow' ? 'allow' : 'forbid', result.reason ?? '');
      if (result.decision !== 'Allow') {
        writeError(ctx, forbiddenError(attrs, result.reason));
        return Promise.resolve();
      }
      return next(ctx);
    };
    const awaited = async (ctx: RequestContext, attrs: Attributes): Promise<void> => {
      let result;
      try {
        // The request is the scope: its signal is made only if an authorizer reads it (webhooks do).
        result = await authorizer.authorize(attrs, ctx);
      } catch (err) {
        writeError(ctx, newInternalError(err));
        return;
      }
      await decided(ctx, attrs, result);
    };
    return (ctx) => {
      const attrs = attributesFor(ctx.user!, ctx.info, ownGroupOf);
      // A decision the authorizer knows without waiting (RBAC, the built-in rules) goes on at
      // once: no async function, promise and resumption per layer (this filter, the chain, each
      // authorizer's metrics), 2.2 KB less garbage per GET (docs/performance.md, "apiserver").
      // A throw takes the awaited path, which answers it as a 500.
      let known: AuthorizationResult | undefined;
      try {
        known = authorizer.authorizeKnown?.(attrs, ctx);
      } catch {
        known = undefined;
      }
      return known ? decided(ctx, attrs, known) : awaited(ctx, attrs);
    };
  };
}
