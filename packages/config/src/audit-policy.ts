/**
 * The audit Policy (`--audit-policy-file`): decoding, validation and the loaded form.
 *
 * The file is Kubernetes' `audit.k8s.io/v1` Policy, also accepted as `audit.plat.io/v1` (the brand
 * rule), so a cluster's policy file works unchanged. Rules and messages follow k8s.io/apiserver
 * `pkg/apis/audit/validation/validation.go` (ValidatePolicy); a policy without rules is refused as
 * `pkg/audit/policy/reader.go` refuses it.
 */
import { fieldError, isDNS1123Subdomain, type FieldError } from '@plat/api-model';
import { z } from 'zod';
import { decodeDocument, fileError, type LoadResult } from './document.js';

/** The apiVersions a Policy file may declare: plat's name first, then Kubernetes'. */
export const auditPolicyAPIVersions = ['audit.plat.io/v1', 'audit.k8s.io/v1'] as const;

export const auditLevels = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof auditLevels)[number];

export const auditStages = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof auditStages)[number];

export interface AuditGroupResources {
  /** The API group; '' is the core group, '*' any group. */
  group?: string;
  // `resource`, `resource/subresource`, `*`, `*/subresource` or `resource/*`; empty means every resource of the group.
  resources?: string[];
  resourceNames?: string[];
}

export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  /** '' matches cluster-scoped resources. */
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  apiVersion: string;
  kind: 'Policy';
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

const strList = () => z.array(z.string()).optional();

const groupResourcesSchema = z.strictObject({
  group: z.string().optional(),
  resources: strList(),
  resourceNames: strList(),
});

const policyRuleSchema = z.strictObject({
  level: z.string().optional(),
  users: strList(),
  userGroups: strList(),
  verbs: strList(),
  resources: z.array(groupResourcesSchema).optional(),
  namespaces: strList(),
  nonResourceURLs: strList(),
  omitStages: strList(),
  omitManagedFields: z.boolean().optional(),
});

const policySchema = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  // ObjectMeta: a policy file may carry a name or labels; nothing reads them.
  metadata: z.record(z.string(), z.unknown()).optional(),
  rules: z.array(policyRuleSchema).optional(),
  omitStages: strList(),
  omitManagedFields: z.boolean().optional(),
});

type PolicyRuleInput = z.infer<typeof policyRuleSchema>;

function validateLevel(level: string | undefined, path: string): FieldError[] {
  if (level === undefined || level === '') return [fieldError.required(path)];
  if (!(auditLevels as readonly string[]).includes(level)) return [fieldError.notSupported(path, level, auditLevels)];
  return [];
}

function validateOmitStages(stages: readonly string[] | undefined, path: string): FieldError[] {
  return (stages ?? []).flatMap((stage, i) =>
    (auditStages as readonly string[]).includes(stage) ? [] : [fieldError.invalid(`${path}[${i}]`, stage, `allowed stages are ${auditStages.join(',')}`)],
  );
}

function validateNonResourceURLs(urls: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (urls ?? []).forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errs.push(fieldError.invalid(`${path}[${i}]`, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errs.push(fieldError.invalid(`${path}[${i}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    }
  });
  return errs;
}

function validateResources(resources: PolicyRuleInput['resources'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const gr of resources ?? []) {
    // Kubernetes reports these at `resources.group` / `resources.resourceNames`, without the index.
    const group = gr.group ?? '';
    if (group !== '' && group !== '*') {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length > 0) errs.push(fieldError.invalid(`${path}.group`, group, msgs.join(',')));
    }
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0) {
      errs.push(fieldError.invalid(`${path}.resourceNames`, gr.resourceNames, 'using resourceNames requires at least one resource'));
    }
  }
  return errs;
}

function validateRule(rule: PolicyRuleInput, path: string): FieldError[] {
  const errs = [
    ...validateLevel(rule.level, `${path}.level`),
    ...validateNonResourceURLs(rule.nonResourceURLs, `${path}.nonResourceURLs`),
    ...validateResources(rule.resources, `${path}.resources`),
    ...validateOmitStages(rule.omitStages, `${path}.omitStages`),
  ];
  if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)) {
    errs.push(fieldError.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  return errs;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Decodes and validates a Policy file. A policy must have at least one rule. */
export function loadAuditPolicy(data: string | Uint8Array): LoadResult<AuditPolicy> {
  const decoded = decodeDocument(data, 'Policy', policySchema, auditPolicyAPIVersions);
  if (!decoded.ok) return { ok: false, errors: decoded.errors, warnings: [] };
  if (!decoded.value) return { ok: false, errors: [fileError('the file is empty')], warnings: [] };
  const input = decoded.value;
  const errs = [...validateOmitStages(input.omitStages, 'omitStages'), ...(input.rules ?? []).flatMap((rule, i) => validateRule(rule, `rules[${i}]`))];
  if (errs.length > 0) return { ok: false, errors: errs, warnings: [] };
  // pkg/audit/policy/reader.go: "loaded illegal policy with 0 rules".
  if ((input.rules ?? []).length === 0) return { ok: false, errors: [fieldError.required('rules', 'a policy needs at least one rule')], warnings: [] };
  const policy: AuditPolicy = withoutUndefined({
    apiVersion: input.apiVersion!,
    kind: 'Policy' as const,
    rules: input.rules!.map((rule) => withoutUndefined({ ...rule, level: rule.level as AuditLevel, omitStages: rule.omitStages as AuditStage[] | undefined })),
    omitStages: input.omitStages as AuditStage[] | undefined,
    omitManagedFields: input.omitManagedFields,
  });
  return { ok: true, config: policy, warnings: [] };
}
