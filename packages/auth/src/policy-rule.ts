import type { Attributes } from './interface.js';

/**
 * One rule of a built-in role, in RBAC's PolicyRule shape: resource rules name verbs, API groups,
 * resources (`resource` or `resource/subresource`, `*` for all) and optionally resource names;
 * non-resource rules name verbs and URL paths (`/exact` or `/prefix/*`, `*` for all).
 */
export interface PolicyRule {
  verbs: readonly string[];
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return !!list && (list.includes('*') || list.includes(value));
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/scale` matches that subresource of every resource.
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether the rule covers the request (RBAC's RuleAllows). */
export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path);
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  if (!resourceMatches(rule, attrs.resource, attrs.subresource)) return false;
  // No resourceNames means every name; with names, only requests naming one of them.
  if (!rule.resourceNames || rule.resourceNames.length === 0) return true;
  return rule.resourceNames.includes(attrs.name);
}
