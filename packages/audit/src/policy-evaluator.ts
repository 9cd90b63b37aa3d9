/**
 * Which level a request is audited at, and which stages are left out: the first rule of the
 * Policy that matches wins, none matching means `None`. Kubernetes' semantics, from k8s.io/apiserver
 * `pkg/audit/policy/checker.go` (NewPolicyRuleEvaluator, ruleMatches): a rule's omitStages is the
 * union of its own and the policy's; omitManagedFields of a rule overrides the policy's.
 */
import type { AuditLevel, AuditPolicy, AuditPolicyRule, AuditStage } from '@plat/config';

/** What the policy looks at: the authorizer's attributes of the request (its user before impersonation). */
export interface AuditAttributes {
  user?: { username: string; groups?: readonly string[] };
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The request path, for non-resource rules. */
  path: string;
}

/** The outcome for one request (kube's RequestAuditConfig). */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

export interface PolicyRuleEvaluator {
  evaluate(attrs: AuditAttributes): RequestAuditConfig;
}

/** A level's place in the order (comparisons of the name rather than a keyed load from a table, which was megamorphic on the request path). */
function levelRank(level: AuditLevel): number {
  return level === 'None' ? 0 : level === 'Metadata' ? 1 : level === 'Request' ? 2 : 3;
}

/**
 * The level as this module's literal rather than the string the policy file's parser made: a
 * policy file with any character beyond ASCII (a comment will do) gives two-byte strings, and
 * JSON.stringify of an event holding one writes the whole line two-byte, then converts it (a GET
 * at Metadata: about 1.6 KB more allocated per event, 5.7 against 4.1 KB of the audit's
 * allocation in filter.mjs, whose policy comes from the text of docs/audit.md).
 */
function canonicalLevel(level: AuditLevel): AuditLevel {
  return level === 'None' ? 'None' : level === 'Metadata' ? 'Metadata' : level === 'Request' ? 'Request' : 'RequestResponse';
}

/** `a` is below `b` (kube's Level.Less). */
export function levelLess(a: AuditLevel, b: AuditLevel): boolean {
  return levelRank(a) < levelRank(b);
}

interface CompiledRule {
  rule: AuditPolicyRule;
  users?: ReadonlySet<string>;
  userGroups?: ReadonlySet<string>;
  verbs?: ReadonlySet<string>;
  namespaces?: ReadonlySet<string>;
  config: RequestAuditConfig;
}

const nonEmptySet = (list: readonly string[] | undefined) => (list && list.length > 0 ? new Set(list) : undefined);

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(r: AuditPolicyRule, namespaces: ReadonlySet<string> | undefined, a: AuditAttributes): boolean {
  if (!a.resourceRequest) return false;
  // Cluster-scoped resources have the namespace ''.
  if (namespaces && !namespaces.has(a.namespace ?? '')) return false;
  if (!r.resources || r.resources.length === 0) return true;
  const resource = a.resource ?? '';
  const subresource = a.subresource ?? '';
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources) {
    const group = gr.group ?? '';
    if (group !== (a.apiGroup ?? '') && group !== '*') continue;
    if (!gr.resources || gr.resources.length === 0) return true;
    if (gr.resourceNames && gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name ?? '')) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

function matches(c: CompiledRule, a: AuditAttributes): boolean {
  if (c.users && (!a.user || !c.users.has(a.user.username))) return false;
  if (c.userGroups && !(a.user?.groups ?? []).some((g) => c.userGroups!.has(g))) return false;
  if (c.verbs && !c.verbs.has(a.verb)) return false;
  if (c.namespaces || (c.rule.resources && c.rule.resources.length > 0)) return matchesResource(c.rule, c.namespaces, a);
  if (c.rule.nonResourceURLs && c.rule.nonResourceURLs.length > 0) {
    return !a.resourceRequest && c.rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  }
  return true;
}

/** Compiles a validated Policy (@plat/config's loadAuditPolicy) once; evaluate() runs per request. */
export function newPolicyRuleEvaluator(policy: Pick<AuditPolicy, 'rules' | 'omitStages' | 'omitManagedFields'>): PolicyRuleEvaluator {
  const policyStages = new Set<AuditStage>(policy.omitStages ?? []);
  const policyOmitManagedFields = policy.omitManagedFields ?? false;
  const rules: CompiledRule[] = policy.rules.map((rule) => ({
    rule,
    users: nonEmptySet(rule.users),
    userGroups: nonEmptySet(rule.userGroups),
    verbs: nonEmptySet(rule.verbs),
    namespaces: nonEmptySet(rule.namespaces),
    config: {
      level: canonicalLevel(rule.level),
      omitStages: new Set<AuditStage>([...policyStages, ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policyOmitManagedFields,
    },
  }));
  const fallback: RequestAuditConfig = { level: 'None', omitStages: policyStages, omitManagedFields: policyOmitManagedFields };
  const evaluateRules = (attrs: AuditAttributes): RequestAuditConfig => {
    for (const c of rules) if (matches(c, attrs)) return c.config;
    return fallback;
  };
  // When no rule looks at the user, the namespace or the object's name, a resource request's
  // outcome depends only on its verb, group, resource and subresource: it is looked up by those
  // instead of walking the rules (about 0.3 µs a GET with the recommended policy, perf at load 15).
  // Non-resource requests (any path) are always evaluated.
  const shapeOnly = policy.rules.every(
    (r) => !r.users?.length && !r.userGroups?.length && !r.namespaces?.length && !(r.resources ?? []).some((gr) => gr.resourceNames && gr.resourceNames.length > 0),
  );
  if (!shapeOnly) return { evaluate: evaluateRules };
  const byShape = new Map<string, Map<string, Map<string, Map<string, RequestAuditConfig>>>>();
  let cached = 0;
  // The last shape and its outcome, compared before the maps: the request info's strings are new
  // each request, so each map lookup hashed its key again (about 0.5 µs a GET, perf at load 6).
  let lastVerb = '';
  let lastGroup = '';
  let lastResource = '';
  let lastSubresource = '';
  let lastConfig: RequestAuditConfig | undefined;
  return {
    evaluate(attrs) {
      if (!attrs.resourceRequest) return evaluateRules(attrs);
      const group = attrs.apiGroup ?? '';
      const resource = attrs.resource ?? '';
      const subresource = attrs.subresource ?? '';
      if (lastConfig && attrs.verb === lastVerb && resource === lastResource && group === lastGroup && subresource === lastSubresource) return lastConfig;
      let config = byShape.get(attrs.verb)?.get(group)?.get(resource)?.get(subresource);
      lastVerb = attrs.verb;
      lastGroup = group;
      lastResource = resource;
      lastSubresource = subresource;
      if (config) return (lastConfig = config);
      lastConfig = config = evaluateRules(attrs);
      // Bounded: a client may name any resource (answered 404), each a new shape.
      if (cached < maxCachedShapes) {
        cached++;
        let byGroup = byShape.get(attrs.verb);
        if (!byGroup) byShape.set(attrs.verb, (byGroup = new Map()));
        let byResource = byGroup.get(group);
        if (!byResource) byGroup.set(group, (byResource = new Map()));
        let bySubresource = byResource.get(resource);
        if (!bySubresource) byResource.set(resource, (bySubresource = new Map()));
        bySubresource.set(subresource, config);
      }
      return config;
    },
  };
}

/** Outcomes remembered by request shape (verb, group, resource, subresource), at most; past it, the rules are walked. */
export const maxCachedShapes = 4096;
