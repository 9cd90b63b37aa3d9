import {
  isRbacGroup,
  roleRefsEqual,
  type AggregationRule,
  type ClusterRole,
  type LabelSelectorObject,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type Subject,
} from '@plat/api-model';
import { autoupdateAnnotation } from './bootstrap-policy.js';
import { covers } from './policy-comparator.js';

/**
 * Kubernetes' RBAC reconciliation (k8s.io/component-helpers/auth/rbac/reconciliation), what both
 * `kubectl auth reconcile` and the apiserver's bootstrap policy use: an existing role keeps what
 * it has and gains the expected rules it misses (or is set to exactly the expected rules with
 * removeExtraPermissions); an existing binding keeps its subjects and gains the missing ones; a
 * binding whose roleRef differs is recreated. Objects annotated `autoupdate: "false"` are
 * protected: the result says what would change, and the caller leaves them alone.
 */

export type ReconcileOperation = 'None' | 'Create' | 'Update' | 'Recreate';

export interface RoleReconcileResult<T extends Role | ClusterRole> {
  /** The role as it should be stored. */
  role: T;
  missingRules: PolicyRule[];
  extraRules: PolicyRule[];
  missingAggregationRuleSelectors: LabelSelectorObject[];
  extraAggregationRuleSelectors: LabelSelectorObject[];
  operation: ReconcileOperation;
  /** The existing object opted out (`autoupdate: "false"`). */
  protected: boolean;
}

export interface BindingReconcileResult<T extends RoleBinding> {
  binding: T;
  missingSubjects: Subject[];
  extraSubjects: Subject[];
  operation: ReconcileOperation;
  protected: boolean;
}

const isProtected = (obj: Role | RoleBinding): boolean => obj.metadata?.annotations?.[autoupdateAnnotation] === 'false';

/** Expected keys added to the existing ones; an existing value wins (Kubernetes' merge). */
function mergeMaps(expected: Record<string, string> | null | undefined, existing: Record<string, string> | null | undefined): Record<string, string> | undefined {
  const merged = { ...expected, ...existing };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

const sameMap = (a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => (b ?? {})[k] === (a ?? {})[k]);
};

/** The existing object with the expected labels and annotations it lacks; whether that changed anything. */
function withMergedMetadata<T extends Role | RoleBinding>(existing: T, expected: T): { obj: T; changed: boolean } {
  const obj = structuredClone(existing);
  const meta = (obj.metadata ??= {});
  const annotations = mergeMaps(expected.metadata?.annotations, existing.metadata?.annotations);
  const labels = mergeMaps(expected.metadata?.labels, existing.metadata?.labels);
  const changed = !sameMap(annotations, existing.metadata?.annotations) || !sameMap(labels, existing.metadata?.labels);
  if (annotations) meta.annotations = annotations;
  if (labels) meta.labels = labels;
  return { obj, changed };
}

/** JSON with sorted keys, for Kubernetes' semantic DeepEqual of selectors (nil and empty alike). */
function selectorKey(s: LabelSelectorObject): string {
  const labels = Object.entries(s.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exprs = (s.matchExpressions ?? []).map((e) => [e.key, e.operator, e.values ?? []]);
  return JSON.stringify([labels, exprs]);
}

/** Kubernetes' aggregationRuleCovers: the servant's selectors the owner lacks. */
function missingSelectors(owner: AggregationRule | null | undefined, servant: AggregationRule | null | undefined): LabelSelectorObject[] {
  const have = new Set((owner?.clusterRoleSelectors ?? []).map(selectorKey));
  return (servant?.clusterRoleSelectors ?? []).filter((s) => !have.has(selectorKey(s)));
}

/** Kubernetes' computeReconciledRole. `existing` undefined means the role is to be created as expected. */
export function computeReconciledRole<T extends Role | ClusterRole>(
  existing: T | undefined,
  expected: T,
  removeExtraPermissions: boolean,
): RoleReconcileResult<T> {
  if (!existing) {
    return {
      role: structuredClone(expected),
      missingRules: [...(expected.rules ?? [])],
      extraRules: [],
      missingAggregationRuleSelectors: [],
      extraAggregationRuleSelectors: [],
      operation: 'Create',
      protected: false,
    };
  }
  const { obj: role, changed } = withMergedMetadata(existing, expected);
  let operation: ReconcileOperation = changed ? 'Update' : 'None';
  const expectedAggregation = (expected as ClusterRole).aggregationRule;
  const existingAggregation = (existing as ClusterRole).aggregationRule;
  const expectedRules = expected.rules ?? [];
  const existingRules = existing.rules ?? [];
  // Extra permissions are not computed when both roles aggregate: their rules are the controller's.
  const extraRules = !expectedAggregation || !existingAggregation ? covers(expectedRules, existingRules).missing : [];
  const missingRules = covers(existingRules, expectedRules).missing;
  if (!removeExtraPermissions && missingRules.length > 0) {
    role.rules = [...existingRules, ...missingRules];
    operation = 'Update';
  } else if (removeExtraPermissions && (missingRules.length > 0 || extraRules.length > 0)) {
    role.rules = structuredClone(expectedRules);
    operation = 'Update';
  }
  const extraAggregationRuleSelectors = missingSelectors(expectedAggregation, existingAggregation);
  const missingAggregationRuleSelectors = missingSelectors(existingAggregation, expectedAggregation);
  const target = role as ClusterRole;
  if (!expectedAggregation && existingAggregation) {
    // Not expected to aggregate at all: the aggregation goes.
    delete target.aggregationRule;
    operation = 'Update';
  } else if (!removeExtraPermissions && missingAggregationRuleSelectors.length > 0) {
    target.aggregationRule = { clusterRoleSelectors: [...(existingAggregation?.clusterRoleSelectors ?? []), ...missingAggregationRuleSelectors] };
    operation = 'Update';
  } else if (removeExtraPermissions && (missingAggregationRuleSelectors.length > 0 || extraAggregationRuleSelectors.length > 0)) {
    target.aggregationRule = structuredClone(expectedAggregation);
    operation = 'Update';
  }
  return { role, missingRules, extraRules, missingAggregationRuleSelectors, extraAggregationRuleSelectors, operation, protected: isProtected(existing) };
}

/** Subjects are the same when kind, name, namespace and (either name of the RBAC) group are. */
function subjectKey(s: Subject): string {
  const group = isRbacGroup(s.apiGroup) ? 'rbac' : (s.apiGroup ?? '');
  return JSON.stringify([s.kind ?? '', group, s.name ?? '', s.namespace ?? '']);
}

/** Kubernetes' computeReconciledRoleBinding. `existing` undefined means the binding is to be created as expected. */
export function computeReconciledRoleBinding<T extends RoleBinding>(existing: T | undefined, expected: T, removeExtraSubjects: boolean): BindingReconcileResult<T> {
  if (!existing) {
    return { binding: structuredClone(expected), missingSubjects: [...(expected.subjects ?? [])], extraSubjects: [], operation: 'Create', protected: false };
  }
  const prot = isProtected(existing);
  if (!roleRefsEqual(existing.roleRef, expected.roleRef)) {
    // roleRef is immutable: the binding is deleted and created as expected.
    return { binding: structuredClone(expected), missingSubjects: [], extraSubjects: [], operation: 'Recreate', protected: prot };
  }
  const { obj: binding, changed } = withMergedMetadata(existing, expected);
  let operation: ReconcileOperation = changed ? 'Update' : 'None';
  const existingKeys = new Set((existing.subjects ?? []).map(subjectKey));
  const expectedKeys = new Set((expected.subjects ?? []).map(subjectKey));
  const missingSubjects = (expected.subjects ?? []).filter((s) => !existingKeys.has(subjectKey(s)));
  const extraSubjects = (existing.subjects ?? []).filter((s) => !expectedKeys.has(subjectKey(s)));
  if (!removeExtraSubjects && missingSubjects.length > 0) {
    binding.subjects = [...(existing.subjects ?? []), ...missingSubjects];
    operation = 'Update';
  } else if (removeExtraSubjects && (missingSubjects.length > 0 || extraSubjects.length > 0)) {
    binding.subjects = structuredClone(expected.subjects ?? []);
    operation = 'Update';
  }
  return { binding, missingSubjects, extraSubjects, operation, protected: prot };
}
