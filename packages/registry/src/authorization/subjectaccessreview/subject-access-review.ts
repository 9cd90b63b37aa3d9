import {
  authorizationGroup,
  subjectAccessReviewKind,
  subjectAccessReviewSchema,
  validateSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
} from '@plat/api-model';
import type { UserInfo } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { authorizationV1SubjectAccessReviewMessage } from '../../kind-protobuf.generated.js';
import { reviewResource, validateEmptyMetadata } from '../../review-resource.js';
import { decide, parseReview, reviewAttributes, throwIfInvalid } from '../access-review.js';

/** SubjectAccessReview: the chain's decision for the subject in the spec (its caller needs `create` on it). */
export function subjectAccessReviewResource(): ResourceDefinition {
  const kind = subjectAccessReviewKind;
  return reviewResource(authorizationGroup, 'subjectaccessreviews', kind, authorizationV1SubjectAccessReviewMessage, async ({ object, group, authorizer, scope }) => {
    const spec = parseReview(subjectAccessReviewSchema, kind, object).spec as SubjectAccessReviewSpec;
    throwIfInvalid(authorizationGroup, kind, [...validateEmptyMetadata(object.metadata), ...validateSubjectAccessReviewSpec(spec)]);
    const subject: UserInfo = {
      username: spec.user ?? '',
      groups: spec.groups ?? [],
      ...(spec.uid ? { uid: spec.uid } : {}),
      ...(spec.extra ? { extra: spec.extra } : {}),
    };
    const status = await decide(authorizer, reviewAttributes(subject, spec), scope);
    return { kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: object.spec ?? {}, status };
  });
}
