import { canonicalApiGroup, goQuoteList, rbacWildcard, type PolicyRule } from '@plat/api-model';

/**
 * Whether one set of rules grants everything another does (Kubernetes' `Covers`,
 * component-helpers/auth/rbac/validation/policy_comparator.go), and the compact form Kubernetes
 * prints missing permissions in (`CompactRules`, `CompactString`). As in rule matching, a
 * Kubernetes group name and the plat group that serves the same resources count as one group.
 */

const canonical = canonicalApiGroup;

/**
 * Kubernetes' BreakdownRule: one rule per (group, resource, verb[, resourceName]) and per
 * (nonResourceURL, verb), so each piece is covered by a single owner rule or not at all.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (names.length > 0) {
          for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => set.includes(w));
}

function groupsCoverAll(set: readonly string[], wanted: readonly string[]): boolean {
  if (set.includes(rbacWildcard)) return true;
  const owned = new Set(set.map(canonical));
  return wanted.every((w) => owned.has(canonical(w)));
}

function resourcesCoverAll(set: readonly string[], wanted: readonly string[]): boolean {
  if (set.includes(rbacWildcard) || hasAll(set, wanted)) return true;
  for (const path of wanted) {
    if (set.includes(path)) continue;
    const slash = path.indexOf('/');
    // Not a subresource: nothing but an exact match or `*` covers it.
    if (slash < 0) return false;
    if (!set.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

/** Kubernetes' ruleCovers: whether one owner rule covers a broken-down rule. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerVerbs = owner.verbs ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const verbs = ownerVerbs.includes(rbacWildcard) || hasAll(ownerVerbs, sub.verbs ?? []);
  const groups = groupsCoverAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = resourcesCoverAll(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((path) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, path)));
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** Kubernetes' Covers: whether `ownerRules` grant all of `servantRules`, and the broken-down rules they miss. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covers: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const sub of breakdownRule(servant)) {
      if (!ownerRules.some((owner) => ruleCovers(owner, sub))) missing.push(sub);
    }
  }
  return { covers: missing.length === 0, missing };
}

/**
 * Kubernetes' CompactRules: rules with one API group, one resource and only verbs are merged per
 * group and resource (their verbs concatenated); other rules are kept as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule & { verbs: string[] }>();
  for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const resources = rule.resources ?? [];
    const isSimple = (rule.resourceNames ?? []).length === 0 && (rule.nonResourceURLs ?? []).length === 0 && groups.length === 1 && resources.length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([groups[0], resources[0]]);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...(rule.verbs ?? []));
    else simple.set(key, { apiGroups: [...groups], resources: [...resources], verbs: [...(rule.verbs ?? [])] });
  }
  return [...compacted, ...simple.values()];
}

/**
 * Kubernetes' CompactString of a PolicyRule, as escalation errors print missing permissions:
 * `{APIGroups:["certificates.plat.io"], Resources:["signers"], ResourceNames:["example.com/*"], Verbs:["attest"]}`.
 */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  const field = (label: string, values: readonly string[] | null | undefined) => {
    if (values && values.length > 0) parts.push(`${label}:${goQuoteList(values)}`);
  };
  field('APIGroups', rule.apiGroups);
  field('Resources', rule.resources);
  field('NonResourceURLs', rule.nonResourceURLs);
  field('ResourceNames', rule.resourceNames);
  field('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
