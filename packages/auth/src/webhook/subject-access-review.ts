import type { SubjectAccessReviewSpec } from '@plat/api-model';
import type { Attributes } from '../interface.js';

/** The v1 review spec a webhook is sent: @plat/api-model's wire type, under the name this package exported first. */
export type SubjectAccessReviewSpecV1 = SubjectAccessReviewSpec;

/** The review spec Kubernetes' webhook authorizer builds from request attributes (v1 field names). */
export function subjectAccessReviewSpec(attrs: Attributes): SubjectAccessReviewSpecV1 {
  const spec: SubjectAccessReviewSpecV1 = { user: attrs.user.username, groups: [...attrs.user.groups] };
  if (attrs.user.uid) spec.uid = attrs.user.uid;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length) spec.extra = attrs.user.extra;
  if (attrs.resourceRequest) {
    spec.resourceAttributes = {
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    };
  } else {
    spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
  }
  return spec;
}

/** The wire body for a version: v1beta1 names the groups field `group`. */
export function subjectAccessReviewBody(spec: SubjectAccessReviewSpecV1, version: 'v1' | 'v1beta1'): unknown {
  const wireSpec: Record<string, unknown> = { ...spec };
  if (version === 'v1beta1') {
    wireSpec.group = wireSpec.groups;
    delete wireSpec.groups;
  }
  return { apiVersion: `authorization.plat.io/${version}`, kind: 'SubjectAccessReview', spec: wireSpec };
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** A webhook's answer that cannot be used: not 200, not JSON, or not a well-formed SubjectAccessReview. */
export class WebhookAnswerError extends Error {
  readonly code = 'ERR_WEBHOOK_ANSWER';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookAnswerError';
  }
}

/** Reads the status of a webhook answer; throws a WebhookAnswerError on anything that is not a well-formed review. */
export function parseSubjectAccessReviewStatus(body: unknown, version: 'v1' | 'v1beta1'): SubjectAccessReviewStatus {
  if (!body || typeof body !== 'object') throw new WebhookAnswerError('the webhook answer is not a JSON object');
  const review = body as { apiVersion?: unknown; kind?: unknown; status?: unknown };
  if (review.kind !== 'SubjectAccessReview') throw new WebhookAnswerError(`the webhook answer has kind ${JSON.stringify(review.kind)}, expected "SubjectAccessReview"`);
  const expected = `authorization.plat.io/${version}`;
  if (review.apiVersion !== expected) {
    throw new WebhookAnswerError(`the webhook answer has apiVersion ${JSON.stringify(review.apiVersion)}, expected ${JSON.stringify(expected)}`);
  }
  const status = review.status as Record<string, unknown> | undefined;
  if (!status || typeof status !== 'object') throw new WebhookAnswerError('the webhook answer has no status');
  if (typeof status.allowed !== 'boolean') throw new WebhookAnswerError('the webhook answer has no boolean status.allowed');
  for (const f of ['denied'] as const) {
    if (status[f] !== undefined && typeof status[f] !== 'boolean') throw new WebhookAnswerError(`status.${f} is not a boolean`);
  }
  for (const f of ['reason', 'evaluationError'] as const) {
    if (status[f] !== undefined && typeof status[f] !== 'string') throw new WebhookAnswerError(`status.${f} is not a string`);
  }
  return {
    allowed: status.allowed,
    denied: status.denied === true,
    reason: (status.reason as string | undefined) ?? '',
    evaluationError: (status.evaluationError as string | undefined) ?? '',
  };
}
