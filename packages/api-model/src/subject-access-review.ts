import { z } from 'zod';
import { fieldError, rawValue, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { goQuote } from './go-quote.js';
import { labelSelectorRequirementSchema } from './label-selector-object.js';
import { objectMetaSchema } from './object-meta.js';

/**
 * SubjectAccessReview (`authorization.plat.io` v1 and v1beta1) and SelfSubjectAccessReview (v1):
 * what a webhook authorizer sends and answers, and what `kubectl auth can-i` asks. v1beta1 names
 * the groups field `group`; v1 names it `groups`.
 */

export const authorizationGroup = 'authorization.plat.io';
export const subjectAccessReviewKind = 'SubjectAccessReview';
export const selfSubjectAccessReviewKind = 'SelfSubjectAccessReview';

export const fieldSelectorRequirementSchema = z.object({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});

export const resourceAttributesSchema = z.object({
  namespace: z.string().optional(),
  verb: z.string().optional(),
  group: z.string().optional(),
  version: z.string().optional(),
  resource: z.string().optional(),
  subresource: z.string().optional(),
  name: z.string().optional(),
  fieldSelector: z
    .object({ rawSelector: z.string().optional(), requirements: z.array(fieldSelectorRequirementSchema).optional() })
    .optional(),
  labelSelector: z
    .object({ rawSelector: z.string().optional(), requirements: z.array(labelSelectorRequirementSchema).optional() })
    .optional(),
});
export type ResourceAttributes = z.infer<typeof resourceAttributesSchema>;

export const nonResourceAttributesSchema = z.object({
  path: z.string().optional(),
  verb: z.string().optional(),
});
export type NonResourceAttributes = z.infer<typeof nonResourceAttributesSchema>;

export const subjectAccessReviewStatusSchema = z.object({
  allowed: z.boolean(),
  denied: z.boolean().optional(),
  reason: z.string().optional(),
  evaluationError: z.string().optional(),
});
export type SubjectAccessReviewStatus = z.infer<typeof subjectAccessReviewStatusSchema>;

const attributes = {
  resourceAttributes: resourceAttributesSchema.optional(),
  nonResourceAttributes: nonResourceAttributesSchema.optional(),
};
const subject = {
  user: z.string().optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
  uid: z.string().optional(),
};

export const subjectAccessReviewSpecSchema = z.object({ ...attributes, ...subject, groups: z.array(z.string()).optional() });
export type SubjectAccessReviewSpec = z.infer<typeof subjectAccessReviewSpecSchema>;

export const subjectAccessReviewV1beta1SpecSchema = z.object({ ...attributes, ...subject, group: z.array(z.string()).optional() });
export type SubjectAccessReviewV1beta1Spec = z.infer<typeof subjectAccessReviewV1beta1SpecSchema>;

const review = <S extends z.ZodType>(spec: S) =>
  z.object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema.optional(),
    spec,
    status: subjectAccessReviewStatusSchema.optional(),
  });

export const subjectAccessReviewSchema = review(subjectAccessReviewSpecSchema);
export type SubjectAccessReview = z.infer<typeof subjectAccessReviewSchema>;

export const subjectAccessReviewV1beta1Schema = review(subjectAccessReviewV1beta1SpecSchema);
export type SubjectAccessReviewV1beta1 = z.infer<typeof subjectAccessReviewV1beta1Schema>;

export const selfSubjectAccessReviewSpecSchema = z.object(attributes);
export type SelfSubjectAccessReviewSpec = z.infer<typeof selfSubjectAccessReviewSpecSchema>;

export const selfSubjectAccessReviewSchema = review(selfSubjectAccessReviewSpecSchema);
export type SelfSubjectAccessReview = z.infer<typeof selfSubjectAccessReviewSchema>;

/** The v1beta1 form of a v1 review (`groups` → `group`), as a webhook configured for v1beta1 receives it. */
export function subjectAccessReviewToV1beta1(sar: SubjectAccessReview): SubjectAccessReviewV1beta1 {
  const { groups, ...rest } = sar.spec;
  return {
    ...sar,
    apiVersion: `${authorizationGroup}/v1beta1`,
    kind: subjectAccessReviewKind,
    spec: groups === undefined ? rest : { ...rest, group: groups },
  };
}

/** The v1 form of a v1beta1 review (`group` → `groups`). */
export function subjectAccessReviewFromV1beta1(sar: SubjectAccessReviewV1beta1): SubjectAccessReview {
  const { group, ...rest } = sar.spec;
  return {
    ...sar,
    apiVersion: `${authorizationGroup}/v1`,
    kind: subjectAccessReviewKind,
    spec: group === undefined ? rest : { ...rest, groups: group },
  };
}

/** Go's %#v of the v1 NonResourceAttributes struct, which Kubernetes prints as the bad value. */
function nonResourceValue(attrs: NonResourceAttributes | undefined): unknown {
  if (!attrs) return null;
  return rawValue(`v1.NonResourceAttributes{Path:${goQuote(attrs.path ?? '')}, Verb:${goQuote(attrs.verb ?? '')}}`);
}

/** Exactly one of resourceAttributes and nonResourceAttributes (a union, reported on the spec). */
function validateAttributesChoice(spec: SelfSubjectAccessReviewSpec, path: FieldPath): FieldError[] {
  if (Boolean(spec.resourceAttributes) === Boolean(spec.nonResourceAttributes)) {
    return [fieldError.invalid(path, nonResourceValue(spec.nonResourceAttributes), 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

/** Kubernetes' `ValidateSubjectAccessReviewSpec`: one kind of attributes, and a user or groups. */
export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec, path = FieldPath.root('spec')): FieldError[] {
  const errs = validateAttributesChoice(spec, path);
  if (!spec.user && (spec.groups ?? []).length === 0) {
    errs.push(fieldError.invalid(path.child('user'), spec.user ?? '', 'at least one of user or group must be specified'));
  }
  return errs;
}

/** Kubernetes' `ValidateSelfSubjectAccessReviewSpec`: exactly one kind of attributes. */
export function validateSelfSubjectAccessReviewSpec(spec: SelfSubjectAccessReviewSpec, path = FieldPath.root('spec')): FieldError[] {
  return validateAttributesChoice(spec, path);
}

/** SelfSubjectRulesReview (`authorization.plat.io/v1`): what the caller may do in a namespace (`kubectl auth can-i --list`). */
export const selfSubjectRulesReviewKind = 'SelfSubjectRulesReview';

export const selfSubjectRulesReviewSpecSchema = z.object({ namespace: z.string().optional() });
export type SelfSubjectRulesReviewSpec = z.infer<typeof selfSubjectRulesReviewSpecSchema>;

export const selfSubjectRulesReviewSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema.optional(),
  spec: selfSubjectRulesReviewSpecSchema,
});
export type SelfSubjectRulesReview = z.infer<typeof selfSubjectRulesReviewSchema>;

/** SubjectRulesReviewStatus: the resource and non-resource rules, whether the list is incomplete, and why. */
export const subjectRulesReviewStatusSchema = z.object({
  resourceRules: z.array(
    z.object({
      verbs: z.array(z.string()),
      apiGroups: z.array(z.string()).optional(),
      resources: z.array(z.string()).optional(),
      resourceNames: z.array(z.string()).optional(),
    }),
  ),
  nonResourceRules: z.array(z.object({ verbs: z.array(z.string()), nonResourceURLs: z.array(z.string()).optional() })),
  incomplete: z.boolean(),
  evaluationError: z.string().optional(),
});
export type SubjectRulesReviewStatus = z.infer<typeof subjectRulesReviewStatusSchema>;
