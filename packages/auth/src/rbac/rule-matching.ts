import { kubernetesGroupAliases, rbacWildcard, type PolicyRule } from '@plat/api-model';
import type { Attributes } from '../interface.js';

/**
 * Whether a PolicyRule covers a request: Kubernetes' `RuleAllows` (plugin/pkg/auth/authorizer/rbac)
 * and the matchers of `pkg/apis/rbac/v1/evaluation_helpers.go`.
 *
 * - verbs, apiGroups: the value or `*`;
 * - resources: `*`, the resource, `resource/subresource`, or `*\/subresource` for that subresource
 *   of every resource (a rule naming only `pods` does not cover `pods/log`);
 * - resourceNames: empty means every name; otherwise the request's name must be listed, taken
 *   literally (`example.com/*` matches the name `example.com/*`, which is how the `attest` check
 *   asks for a whole signer domain);
 * - nonResourceURLs: `*`, the path, or a prefix ending in `*`.
 *
 * One addition: a Kubernetes group name that plat also serves under its own name
 * (`rbac.authorization.k8s.io`, `certificates.k8s.io`, `authorization.k8s.io`, `authentication.k8s.io`) and the plat name
 * match each other, since they are the same resources (@plat/api-model's kubernetesGroupAliases).
 */

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === rbacWildcard || v === verb) return true;
  return false;
}

/** The aliased partner of a group name (the plat group for a Kubernetes name and back), if any. */
const groupPartners: ReadonlyMap<string, string> = new Map(
  [...kubernetesGroupAliases].flatMap(([k8s, plat]) => [
    [k8s, plat],
    [plat, k8s],
  ]),
);

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const partner = groupPartners.get(group);
  for (const g of rule.apiGroups ?? []) if (g === rbacWildcard || g === group || (partner !== undefined && g === partner)) return true;
  return false;
}

/** `combined` is `resource` or `resource/subresource`; `subresource` alone enables `*\/subresource`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === rbacWildcard || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Kubernetes trims every trailing `*` of the rule before the prefix comparison. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === rbacWildcard || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** A request prepared once for matching against many rules. */
export interface RuleRequest {
  readonly attrs: Attributes;
  /** `resource` or `resource/subresource`. */
  readonly combined: string;
  /** The aliased partner of the request's group, if it has one. */
  readonly partner: string | undefined;
}

export function ruleRequest(attrs: Attributes): RuleRequest {
  return {
    attrs,
    combined: attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource,
    partner: attrs.resourceRequest ? groupPartners.get(attrs.apiGroup) : undefined,
  };
}

/** RuleAllows for a prepared request. */
export function ruleAllowsRequest(req: RuleRequest, rule: PolicyRule): boolean {
  const { attrs } = req;
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path);
  let group = false;
  for (const g of rule.apiGroups ?? []) {
    if (g === rbacWildcard || g === attrs.apiGroup || (req.partner !== undefined && g === req.partner)) {
      group = true;
      break;
    }
  }
  return group && resourceMatches(rule, req.combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

/** Kubernetes' `RuleAllows`. */
export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  return ruleAllowsRequest(ruleRequest(attrs), rule);
}

/** Kubernetes' `RulesAllow`: whether any of the rules covers the request. */
export function rulesAllow(attrs: Attributes, rules: readonly PolicyRule[]): boolean {
  const req = ruleRequest(attrs);
  return rules.some((rule) => ruleAllowsRequest(req, rule));
}
