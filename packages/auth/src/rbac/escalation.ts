import {
  aggregateMessages,
  clusterRoleKind,
  clusterRoleResource,
  compareGoStrings,
  goQuote,
  goQuoteList,
  isRbacGroup,
  newForbidden,
  newInternalError,
  newNotFound,
  roleKind,
  roleResource,
  type ClusterRole,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type RoleRef,
  type StatusError,
} from '@plat/api-model';
import { systemMasters, type Attributes, type Authorizer, type RequestScope, type UserInfo } from '../interface.js';
import { compactRuleString, compactRules, covers } from './policy-comparator.js';
import type { RbacRuleResolver } from './rule-resolver.js';

/**
 * Escalation prevention, as Kubernetes' RBAC storage enforces it (pkg/registry/rbac: the
 * policybased storages, escalation_check.go, validation.ConfirmNoEscalation): a user may create
 * or update a role only with every permission it grants, or the `escalate` verb on it; a user may
 * create or update a binding only with every permission of the role it references, or the `bind`
 * verb on that role. Members of `system:masters` always may.
 */

/** The request as the server routed it (Kubernetes' RequestInfo): the group the client used, `name` '' on create. */
export interface RbacRequest {
  apiGroup: string;
  resource: string;
  namespace: string;
  name: string;
}

export interface EscalationCheckContext {
  /** The rules the user holds come from here (the same source as the RBAC authorizer's). */
  resolver: RbacRuleResolver;
  /** The server's authorizer chain, asked for `escalate` and `bind`. */
  authorizer: Authorizer;
  user: UserInfo;
  /** The request the checks are made for (an API server's request context, or `{ signal }`). */
  scope?: RequestScope;
}

/** Kubernetes' EscalationAllowed: members of `system:masters` may grant anything. */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(systemMasters);
}

async function allowed(authorizer: Authorizer, attrs: Attributes, scope: RequestScope | undefined): Promise<boolean> {
  try {
    return (await authorizer.authorize(attrs, scope)).decision === 'Allow';
  } catch {
    // As Kubernetes: an authorizer error is logged there and counts as not allowed.
    return false;
  }
}

const resourceAttributes = (user: UserInfo, verb: string, apiGroup: string, resource: string, namespace: string, name: string): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup,
  apiVersion: '*',
  resource,
  subresource: '',
  namespace,
  name,
  path: '',
});

/**
 * Kubernetes' RoleEscalationAuthorized: whether the user may `escalate` the role or cluster role
 * the request is about (the request's name, so '' on create, as in Kubernetes).
 */
export async function roleEscalationAuthorized(ctx: EscalationCheckContext, request: RbacRequest): Promise<boolean> {
  if (!isRbacGroup(request.apiGroup) || (request.resource !== roleResource && request.resource !== clusterRoleResource)) return false;
  const attrs = resourceAttributes(ctx.user, 'escalate', request.apiGroup, request.resource, request.namespace, request.name);
  return allowed(ctx.authorizer, attrs, ctx.scope);
}

/**
 * Kubernetes' BindingAuthorized: whether the user may `bind` the referenced role, asked in the
 * binding's namespace ('' for a ClusterRoleBinding), so that binding a ClusterRole can be
 * delegated per namespace.
 */
export async function bindingAuthorized(ctx: EscalationCheckContext, roleRef: RoleRef, bindingNamespace: string): Promise<boolean> {
  const resource = roleRef.kind === clusterRoleKind ? clusterRoleResource : roleRef.kind === roleKind ? roleResource : undefined;
  if (!resource) return false;
  const attrs = resourceAttributes(ctx.user, 'bind', roleRef.apiGroup ?? '', resource, bindingNamespace, roleRef.name ?? '');
  return allowed(ctx.authorizer, attrs, ctx.scope);
}

/**
 * Kubernetes' ConfirmNoEscalation: undefined when the rules the user holds in `namespace` cover
 * `rules`; otherwise Kubernetes' message, e.g.
 * `user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`
 * followed by one compact rule per line (sorted), and `; resolution errors: [...]` when some role
 * the user is bound to does not exist.
 */
export function confirmNoEscalation(resolver: RbacRuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = resolver.rulesFor(user, namespace);
  const result = covers(owner.rules, rules.filter(Boolean));
  if (result.covers) return undefined;
  const descriptions = [...new Set(compactRules(result.missing).map(compactRuleString))].sort(compareGoStrings);
  let msg = `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owner.errors.length > 0) {
    // Kubernetes prints its one-element []error holding the aggregate: `[<aggregate>]`.
    msg += `; resolution errors: [${aggregateMessages(owner.errors.map((e) => e.message))}]`;
  }
  return msg;
}

/** Kubernetes' fullAuthority: what setting an aggregationRule requires (cluster-admin). */
const fullAuthority: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const hasAggregationRule = (role: ClusterRole | undefined): boolean => (role?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;

/**
 * The check of a role or cluster role create or update (Kubernetes' role and clusterrole
 * policybased storages): allowed for `system:masters` and for users with `escalate` on it;
 * otherwise the user must hold every rule of the role in the request's namespace, and, to set,
 * change or drop an aggregationRule, hold everything (`*` on `*.*` and on every URL). Answers the
 * 403 to send, or undefined. The caller skips it for an update that changes only ownerReferences
 * and finalizers, as Kubernetes does.
 */
export async function checkRoleEscalation(
  ctx: EscalationCheckContext,
  request: RbacRequest,
  role: Role | ClusterRole,
  oldRole?: Role | ClusterRole,
): Promise<StatusError | undefined> {
  if (escalationAllowed(ctx.user) || (await roleEscalationAuthorized(ctx, request))) return undefined;
  const gr = { group: request.apiGroup, resource: request.resource };
  const name = role.metadata?.name ?? '';
  const missing = confirmNoEscalation(ctx.resolver, ctx.user, request.namespace, role.rules ?? []);
  if (missing) return newForbidden(gr, name, new Error(missing));
  if (request.resource === clusterRoleResource && (hasAggregationRule(role as ClusterRole) || hasAggregationRule(oldRole as ClusterRole | undefined))) {
    if (confirmNoEscalation(ctx.resolver, ctx.user, request.namespace, fullAuthority)) {
      return newForbidden(gr, name, new Error('must have cluster-admin privileges to use the aggregationRule'));
    }
  }
  return undefined;
}

/**
 * The check of a binding create or update (Kubernetes' rolebinding and clusterrolebinding
 * policybased storages): allowed for `system:masters` and for users with `bind` on the
 * referenced role; otherwise the referenced role must exist (404 as Kubernetes' registry words
 * it) and the user must hold all its rules in the binding's namespace (403). Answers the error to
 * send, or undefined. The caller skips it for an update that changes only ownerReferences and
 * finalizers, as Kubernetes does.
 */
export async function checkBindingEscalation(ctx: EscalationCheckContext, request: RbacRequest, binding: RoleBinding): Promise<StatusError | undefined> {
  if (escalationAllowed(ctx.user)) return undefined;
  const roleRef = binding.roleRef ?? {};
  if (await bindingAuthorized(ctx, roleRef, request.namespace)) return undefined;
  const { rules, error } = ctx.resolver.getRoleReferenceRules(roleRef, request.namespace);
  if (error) {
    if (error.reason !== 'NotFound') return newInternalError(error);
    const resource = roleRef.kind === clusterRoleKind ? clusterRoleResource : roleResource;
    return newNotFound({ group: request.apiGroup, resource }, roleRef.name ?? '');
  }
  const missing = confirmNoEscalation(ctx.resolver, ctx.user, request.namespace, rules);
  if (missing) return newForbidden({ group: request.apiGroup, resource: request.resource }, binding.metadata?.name ?? '', new Error(missing));
  return undefined;
}
