import { fieldError, rawValue, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';
import { labelSelectorAsSelector, validateLabelSelectorObject, type LabelSelectorValidationOptions } from './label-selector-object.js';
import { nameIsDNSSubdomain, validatePathSegmentName, type ValidateNameFunc } from './name-validation.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';
import {
  SubjectKind,
  clusterRoleKind,
  isRbacGroup,
  rbacGroup,
  rbacKubernetesGroup,
  roleKind,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from './rbac.js';

/**
 * RBAC validation (Kubernetes' `pkg/apis/rbac/validation`): ValidateRole, ValidateClusterRole
 * (with aggregationRule), ValidateRoleBinding, ValidateClusterRoleBinding and their updates, with
 * Kubernetes' messages. One difference by design: where Kubernetes requires the group
 * `rbac.authorization.k8s.io` (roleRef and User/Group subjects), both names of the group are
 * accepted, because the server serves the same objects under both (the brand rule renames the
 * group; kubectl's generators post the Kubernetes name).
 */

/** The RBAC group names a roleRef or a User/Group subject may carry, canonical first. */
export const rbacApiGroupNames: readonly string[] = [rbacGroup, rbacKubernetesGroup];

/**
 * Kubernetes' `ValidateRBACName`: any name that can be a URL path segment (so role names may hold
 * `:`, as `system:basic-user`). Like Kubernetes it applies the name rule to a generateName prefix
 * too.
 */
export const validateRbacName: ValidateNameFunc = (name) => validatePathSegmentName(name, false);

/**
 * Kubernetes' `ValidatePolicyRule`: verbs required; a non-resource rule only in cluster roles and
 * never mixed with resource fields; a resource rule needs api groups and resources.
 */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const verbs = rule.verbs ?? [];
  const nonResourceURLs = rule.nonResourceURLs ?? [];
  const apiGroups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  const resourceNames = rule.resourceNames ?? [];
  if (verbs.length === 0) errs.push(fieldError.required(path.child('verbs'), 'verbs must contain at least one value'));
  if (nonResourceURLs.length > 0) {
    if (namespaced) errs.push(fieldError.invalid(path.child('nonResourceURLs'), nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
      errs.push(fieldError.invalid(path.child('nonResourceURLs'), nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (apiGroups.length === 0) errs.push(fieldError.required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (resources.length === 0) errs.push(fieldError.required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: readonly PolicyRule[] | null | undefined, namespaced: boolean): FieldError[] {
  const root = FieldPath.root('rules');
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule ?? {}, namespaced, root.index(i)));
}

/** Kubernetes' `ValidateRole`. */
export function validateRole(role: Role): FieldError[] {
  return [...validateObjectMeta(role.metadata, { namespaced: true, nameFn: validateRbacName }), ...validateRules(role.rules, true)];
}

/** Kubernetes' `ValidateRoleUpdate`: the new role as on create, plus the metadata update rules. */
export function validateRoleUpdate(role: Role, oldRole: Role): FieldError[] {
  return [...validateRole(role), ...validateObjectMetaUpdate(role.metadata, oldRole.metadata)];
}

/** Kubernetes' `ValidateClusterRole`: metadata, rules, and each aggregationRule selector. */
export function validateClusterRole(role: ClusterRole, options: LabelSelectorValidationOptions = { allowInvalidLabelValueInSelector: false }): FieldError[] {
  const errs = [...validateObjectMeta(role.metadata, { namespaced: false, nameFn: validateRbacName }), ...validateRules(role.rules, false)];
  if (role.aggregationRule) {
    const selectorsPath = FieldPath.root('aggregationRule', 'clusterRoleSelectors');
    const selectors = role.aggregationRule.clusterRoleSelectors ?? [];
    if (selectors.length === 0) {
      errs.push(fieldError.required(selectorsPath, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    selectors.forEach((selector, i) => {
      const p = selectorsPath.index(i);
      errs.push(...validateLabelSelectorObject(selector, p, options));
      try {
        labelSelectorAsSelector(selector);
      } catch {
        // Kubernetes prints the nil selector its conversion returned: "null", quoted as a string.
        errs.push(fieldError.invalid(p, rawValue(goQuote('null')), 'invalid label selector.'));
      }
    });
  }
  return errs;
}

/** Whether a selector of the role fails the label-value rule (Kubernetes' `hasInvalidLabelValueInLabelSelector`). */
function hasInvalidLabelValueInSelector(role: ClusterRole): boolean {
  return (role.aggregationRule?.clusterRoleSelectors ?? []).some(
    (s) => validateLabelSelectorObject(s, FieldPath.empty(), { allowInvalidLabelValueInSelector: false }).length > 0,
  );
}

/**
 * Kubernetes' ClusterRole update validation: as on create, except that selector label values are
 * not checked when the stored role already had an invalid one (so it stays updatable), plus the
 * metadata update rules.
 */
export function validateClusterRoleUpdate(role: ClusterRole, oldRole: ClusterRole): FieldError[] {
  const options = { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(oldRole) };
  return [...validateClusterRole(role, options), ...validateObjectMetaUpdate(role.metadata, oldRole.metadata)];
}

/** Kubernetes' `ValidateRoleBindingSubject`. */
export function validateRoleBindingSubject(subject: Subject, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? '';
  const apiGroup = subject.apiGroup ?? '';
  if (name === '') errs.push(fieldError.required(path.child('name')));
  switch (subject.kind) {
    case SubjectKind.ServiceAccount:
      if (name !== '') for (const msg of nameIsDNSSubdomain(name, false)) errs.push(fieldError.invalid(path.child('name'), name, msg));
      if (apiGroup !== '') errs.push(fieldError.notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(fieldError.required(path.child('namespace')));
      break;
    case SubjectKind.User:
    case SubjectKind.Group:
      if (!isRbacGroup(apiGroup)) errs.push(fieldError.notSupported(path.child('apiGroup'), apiGroup, rbacApiGroupNames));
      break;
    default:
      errs.push(fieldError.notSupported(path.child('kind'), subject.kind ?? '', [SubjectKind.ServiceAccount, SubjectKind.User, SubjectKind.Group]));
  }
  return errs;
}

function validateRoleRef(ref: RoleRef | undefined, kinds: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = ref?.apiGroup ?? '';
  const kind = ref?.kind ?? '';
  const name = ref?.name ?? '';
  if (!isRbacGroup(apiGroup)) errs.push(fieldError.notSupported(FieldPath.root('roleRef', 'apiGroup'), apiGroup, rbacApiGroupNames));
  if (!kinds.includes(kind)) errs.push(fieldError.notSupported(FieldPath.root('roleRef', 'kind'), kind, kinds));
  if (name === '') errs.push(fieldError.required(FieldPath.root('roleRef', 'name')));
  else for (const msg of validateRbacName(name, false)) errs.push(fieldError.invalid(FieldPath.root('roleRef', 'name'), name, msg));
  return errs;
}

function validateBinding(binding: RoleBinding, namespaced: boolean, kinds: readonly string[]): FieldError[] {
  const subjectsPath = FieldPath.root('subjects');
  return [
    ...validateObjectMeta(binding.metadata, { namespaced, nameFn: validateRbacName }),
    ...validateRoleRef(binding.roleRef, kinds),
    ...(binding.subjects ?? []).flatMap((s, i) => validateRoleBindingSubject(s ?? {}, namespaced, subjectsPath.index(i))),
  ];
}

/** Kubernetes' `ValidateRoleBinding`: roleRef to a Role or ClusterRole, subjects. */
export function validateRoleBinding(binding: RoleBinding): FieldError[] {
  return validateBinding(binding, true, [roleKind, clusterRoleKind]);
}

/** Kubernetes' `ValidateClusterRoleBinding`: roleRef to a ClusterRole, subjects (service accounts name their namespace). */
export function validateClusterRoleBinding(binding: ClusterRoleBinding): FieldError[] {
  return validateBinding(binding, false, [clusterRoleKind]);
}

/**
 * Kubernetes' `%#v` of the internal RoleRef, as its "cannot change roleRef" error prints it:
 * `rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}`.
 */
function roleRefGoString(ref: RoleRef | undefined): string {
  return `rbac.RoleRef{APIGroup:${goQuote(ref?.apiGroup ?? '')}, Kind:${goQuote(ref?.kind ?? '')}, Name:${goQuote(ref?.name ?? '')}}`;
}

/** Whether two roleRefs name the same role; the two names of the RBAC group count as one. */
export function roleRefsEqual(a: RoleRef | undefined, b: RoleRef | undefined): boolean {
  const group = (g: string | undefined) => (isRbacGroup(g) ? rbacGroup : (g ?? ''));
  return group(a?.apiGroup) === group(b?.apiGroup) && (a?.kind ?? '') === (b?.kind ?? '') && (a?.name ?? '') === (b?.name ?? '');
}

function validateRoleRefUnchanged(binding: RoleBinding, old: RoleBinding): FieldError[] {
  if (roleRefsEqual(binding.roleRef, old.roleRef)) return [];
  return [fieldError.invalid('roleRef', rawValue(roleRefGoString(binding.roleRef)), 'cannot change roleRef')];
}

/** Kubernetes' `ValidateRoleBindingUpdate`: as on create, metadata update rules, roleRef immutable. */
export function validateRoleBindingUpdate(binding: RoleBinding, old: RoleBinding): FieldError[] {
  return [...validateRoleBinding(binding), ...validateObjectMetaUpdate(binding.metadata, old.metadata), ...validateRoleRefUnchanged(binding, old)];
}

/** Kubernetes' `ValidateClusterRoleBindingUpdate`: as on create, metadata update rules, roleRef immutable. */
export function validateClusterRoleBindingUpdate(binding: ClusterRoleBinding, old: ClusterRoleBinding): FieldError[] {
  return [
    ...validateClusterRoleBinding(binding),
    ...validateObjectMetaUpdate(binding.metadata, old.metadata),
    ...validateRoleRefUnchanged(binding, old),
  ];
}
