import { LRUCache } from 'lru-cache';
import { aggregateMessages, type PolicyRule } from '@plat/api-model';
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, SubjectRules, UserInfo } from '../interface.js';
import { describeRuleOrigin, RbacRuleResolver, type RuleOrigin } from './rule-resolver.js';
import type { RbacRuleSource } from './rule-source.js';
import { ruleAllowsRequest, ruleRequest } from './rule-matching.js';

const list = (values: readonly string[] | null | undefined): string[] | undefined => (values && values.length > 0 ? [...values] : undefined);

/**
 * Kubernetes' RBAC authorizer (plugin/pkg/auth/authorizer/rbac): Allow when a rule of a binding
 * that names the user covers the request, with the reason
 * `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`; otherwise NoOpinion
 * (never Deny), with `RBAC: <errors>` as the reason when some referenced role does not exist.
 * It reads roles and bindings through an RbacRuleSource (see RbacPolicyStore).
 */
export class RbacAuthorizer implements Authorizer {
  readonly resolver: RbacRuleResolver;
  /** Reasons by origin (the resolver reuses an origin object while its binding is unchanged). */
  private readonly reasons = new WeakMap<RuleOrigin, string>();
  /**
   * Decisions by request (user, groups and what RBAC matches on), valid for one revision of the
   * RBAC objects: any change clears it, so an answer is always the one the objects give now.
   * At most {@link decisionCacheSize} entries, the least recently used going first.
   */
  private readonly decisions = new LRUCache<string, AuthorizationResult>({ max: decisionCacheSize });
  private decisionsRevision = -1;

  constructor(source: RbacRuleSource | RbacRuleResolver) {
    this.resolver = source instanceof RbacRuleResolver ? source : new RbacRuleResolver(source);
  }

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    return this.authorizeKnown(attrs);
  }

  authorizeKnown(attrs: Attributes): AuthorizationResult {
    const revision = this.resolver.revision;
    if (revision !== this.decisionsRevision) {
      this.decisions.clear();
      this.decisionsRevision = revision;
    }
    const key = decisionKey(attrs);
    let result = this.decisions.get(key);
    if (!result) {
      result = this.decide(attrs);
      this.decisions.set(key, result);
    }
    return result;
  }

  private decide(attrs: Attributes): AuthorizationResult {
    const req = ruleRequest(attrs);
    let allowedBy: RuleOrigin | undefined;
    let errors: string[] | undefined;
    this.resolver.visitRulesFor(attrs.user, attrs.namespace, (origin, rule, error) => {
      if (rule && ruleAllowsRequest(req, rule)) {
        allowedBy = origin;
        return false;
      }
      if (error) (errors ??= []).push(error.message);
      return true;
    });
    if (allowedBy) {
      let reason = this.reasons.get(allowedBy);
      if (reason === undefined) {
        reason = `RBAC: allowed by ${describeRuleOrigin(allowedBy)}`;
        this.reasons.set(allowedBy, reason);
      }
      return { decision: 'Allow', reason };
    }
    return { decision: 'NoOpinion', reason: errors ? `RBAC: ${aggregateMessages(errors)}` : '' };
  }

  /**
   * Kubernetes' RBACAuthorizer.RulesFor, for SelfSubjectRulesReview: each applicable rule with
   * resources as a resource rule and each with nonResourceURLs as a non-resource rule; `incomplete`
   * is false (as in Kubernetes, even when a role is missing); `evaluationError` names missing roles.
   */
  rulesFor(user: UserInfo, namespace: string): SubjectRules {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const rule of rules) {
      if ((rule.resources ?? []).length > 0) resourceRules.push(toResourceRule(rule));
      if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: list(rule.nonResourceURLs) });
    }
    const out: SubjectRules = { resourceRules, nonResourceRules, incomplete: false };
    if (errors.length > 0) out.evaluationError = aggregateMessages(errors.map((e) => e.message));
    return out;
  }
}

/** How many decisions an RbacAuthorizer keeps (per revision of the RBAC objects). */
export const decisionCacheSize = 4096;

/**
 * What an RBAC decision depends on: the user's name and groups, and the request's attributes rules
 * match. JSON keeps the key one-to-one whatever characters names hold (a group may not pass for two).
 */
function decisionKey(attrs: Attributes): string {
  const { user } = attrs;
  return attrs.resourceRequest
    ? JSON.stringify([user.username, user.groups, attrs.verb, attrs.apiGroup, attrs.resource, attrs.subresource, attrs.namespace, attrs.name])
    : // The namespace counts for non-resource requests too: RBAC visits that namespace's bindings.
      JSON.stringify([user.username, user.groups, attrs.verb, attrs.path, attrs.namespace]);
}

function toResourceRule(rule: PolicyRule): ResourceRule {
  const out: ResourceRule = { verbs: [...(rule.verbs ?? [])] };
  const apiGroups = list(rule.apiGroups);
  const resources = list(rule.resources);
  const resourceNames = list(rule.resourceNames);
  if (apiGroups) out.apiGroups = apiGroups;
  if (resources) out.resources = resources;
  if (resourceNames) out.resourceNames = resourceNames;
  return out;
}
