import { newBadRequest, newInternalError, newInvalid, type FieldError, type SelfSubjectAccessReviewSpec } from '@plat/api-model';
import type { Attributes, Authorizer, RequestScope, UserInfo } from '@plat/auth';
import type { ZodType } from 'zod';

/** Kubernetes' authorizer.AttributesRecord of a review spec. */
export function reviewAttributes(user: UserInfo, spec: SelfSubjectAccessReviewSpec): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: n.path ?? '',
  };
}

/** The chain's decision as a SubjectAccessReviewStatus. */
export async function decide(authorizer: Authorizer, attrs: Attributes, scope: RequestScope): Promise<Record<string, unknown>> {
  let result;
  try {
    result = await authorizer.authorize(attrs, scope);
  } catch (err) {
    throw newInternalError(err);
  }
  const status: Record<string, unknown> = { allowed: result.decision === 'Allow' };
  if (result.decision === 'Deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  return status;
}

/** A review body read with its kind's schema: a body of the wrong shape is 400, as Kubernetes' decoder answers it. */
export function parseReview<T>(schema: ZodType<T>, kind: string, obj: Record<string, unknown>): T {
  const parsed = schema.safeParse({ ...obj, spec: obj.spec ?? {} });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw newBadRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** 422 with the field errors, when there are any. */
export function throwIfInvalid(group: string, kind: string, errs: FieldError[]): void {
  if (errs.length) throw newInvalid({ group, kind }, '', errs);
}
