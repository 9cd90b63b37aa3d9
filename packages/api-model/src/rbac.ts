import { z } from 'zod';
import { labelSelectorObjectSchema } from './label-selector-object.js';
import { listMetaSchema, objectMetaSchema } from './object-meta.js';

/**
 * The RBAC kinds (`rbac.authorization.plat.io/v1`, Kubernetes' `rbac.authorization.k8s.io/v1` with
 * the brand rule): ClusterRole, ClusterRoleBinding (cluster-scoped), Role, RoleBinding
 * (namespaced). The server serves the same objects under `rbac.authorization.k8s.io` too, because
 * kubectl's generators post there; see {@link renameRbacApiGroups} for how the group names in
 * `roleRef.apiGroup` and `subjects[].apiGroup` are kept.
 *
 * Fields are optional in the schemas where Go decodes a missing field to its zero value; the
 * validation functions (rbac-validation.ts) report what Kubernetes reports for them.
 */

export const rbacGroup = 'rbac.authorization.plat.io';
/** The Kubernetes name of the group, served as an alias backed by the same objects. */
export const rbacKubernetesGroup = 'rbac.authorization.k8s.io';
export const rbacVersion = 'v1';
export const rbacApiVersion = `${rbacGroup}/${rbacVersion}`;

export const clusterRoleKind = 'ClusterRole';
export const clusterRoleBindingKind = 'ClusterRoleBinding';
export const roleKind = 'Role';
export const roleBindingKind = 'RoleBinding';
export const clusterRoleResource = 'clusterroles';
export const clusterRoleBindingResource = 'clusterrolebindings';
export const roleResource = 'roles';
export const roleBindingResource = 'rolebindings';

/** Subject kinds (Kubernetes' rbac.UserKind, GroupKind, ServiceAccountKind). */
export const SubjectKind = { User: 'User', Group: 'Group', ServiceAccount: 'ServiceAccount' } as const;
export type SubjectKind = (typeof SubjectKind)[keyof typeof SubjectKind];

/** The `*` of verbs, apiGroups, resources and nonResourceURLs (Kubernetes' VerbAll, APIGroupAll, ResourceAll, NonResourceAll). */
export const rbacWildcard = '*';

const stringList = z.array(z.string()).nullable().optional();

export const policyRuleSchema = z.object({
  verbs: stringList,
  apiGroups: stringList,
  resources: stringList,
  resourceNames: stringList,
  nonResourceURLs: stringList,
});
export type PolicyRule = z.infer<typeof policyRuleSchema>;

export const aggregationRuleSchema = z.object({
  clusterRoleSelectors: z.array(labelSelectorObjectSchema).nullable().optional(),
});
export type AggregationRule = z.infer<typeof aggregationRuleSchema>;

export const roleRefSchema = z.object({
  apiGroup: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
});
export type RoleRef = z.infer<typeof roleRefSchema>;

export const subjectSchema = z.object({
  kind: z.string().optional(),
  apiGroup: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});
export type Subject = z.infer<typeof subjectSchema>;

const typeMeta = { apiVersion: z.string().optional(), kind: z.string().optional() };

export const roleSchema = z.object({
  ...typeMeta,
  metadata: objectMetaSchema.optional(),
  rules: z.array(policyRuleSchema).nullable().optional(),
});
export type Role = z.infer<typeof roleSchema>;

export const clusterRoleSchema = roleSchema.extend({
  aggregationRule: aggregationRuleSchema.nullable().optional(),
});
export type ClusterRole = z.infer<typeof clusterRoleSchema>;

export const roleBindingSchema = z.object({
  ...typeMeta,
  metadata: objectMetaSchema.optional(),
  subjects: z.array(subjectSchema).nullable().optional(),
  roleRef: roleRefSchema.optional(),
});
export type RoleBinding = z.infer<typeof roleBindingSchema>;

export const clusterRoleBindingSchema = roleBindingSchema;
export type ClusterRoleBinding = RoleBinding;

const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ ...typeMeta, metadata: listMetaSchema.optional(), items: z.array(item) });
export const roleListSchema = listOf(roleSchema);
export const clusterRoleListSchema = listOf(clusterRoleSchema);
export const roleBindingListSchema = listOf(roleBindingSchema);
export const clusterRoleBindingListSchema = listOf(clusterRoleBindingSchema);

/** Whether `group` names the RBAC group under either of its names. */
export function isRbacGroup(group: string | undefined): boolean {
  return group === rbacGroup || group === rbacKubernetesGroup;
}

/**
 * Kubernetes' v1 defaulting of a binding (`SetDefaults_RoleBinding`, `SetDefaults_Subject`): an
 * empty `roleRef.apiGroup`, and the empty `apiGroup` of a User or Group subject, become the RBAC
 * group. Then the stored form: every RBAC group name in those fields becomes
 * `rbac.authorization.plat.io` (the canonical name; see {@link renameRbacApiGroups}). Changes the
 * object in place, as a strategy's prepareForCreate/Update does.
 */
export function setRbacBindingDefaults(binding: RoleBinding): void {
  if (binding.roleRef && !binding.roleRef.apiGroup) binding.roleRef.apiGroup = rbacGroup;
  for (const s of binding.subjects ?? []) {
    if (!s.apiGroup && (s.kind === SubjectKind.User || s.kind === SubjectKind.Group)) s.apiGroup = rbacGroup;
  }
  const renamed = renameRbacApiGroups(binding, rbacGroup);
  if (renamed !== binding) {
    binding.roleRef = renamed.roleRef;
    binding.subjects = renamed.subjects;
  }
}

/**
 * The binding with the RBAC group names in `roleRef.apiGroup` and `subjects[].apiGroup` written as
 * `group` (either RBAC group name). Objects are stored with `rbac.authorization.plat.io` there;
 * when served under `rbac.authorization.k8s.io` they read back with that name, so that what a
 * client wrote comes back as it wrote it (kubectl's apply diffs stay empty and `roleRef` compares
 * equal). Other values are left alone; the input is not changed (a copy is returned when
 * something differs, the same object otherwise).
 */
export function renameRbacApiGroups<T extends RoleBinding>(binding: T, group: string): T {
  const refChanged = isRbacGroup(binding.roleRef?.apiGroup) && binding.roleRef!.apiGroup !== group;
  const subjectChanged = (binding.subjects ?? []).some((s) => isRbacGroup(s.apiGroup) && s.apiGroup !== group);
  if (!refChanged && !subjectChanged) return binding;
  const out: T = { ...binding };
  if (refChanged) out.roleRef = { ...binding.roleRef, apiGroup: group };
  if (subjectChanged) {
    out.subjects = binding.subjects!.map((s) => (isRbacGroup(s.apiGroup) && s.apiGroup !== group ? { ...s, apiGroup: group } : s));
  }
  return out;
}
