import {
  authorizationGroup,
  selfSubjectAccessReviewKind,
  selfSubjectAccessReviewSchema,
  validateSelfSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
} from '@plat/api-model';
import type { ResourceDefinition } from '@plat/server';
import { authorizationV1SelfSubjectAccessReviewMessage } from '../../kind-protobuf.generated.js';
import { reviewResource, validateEmptyMetadata } from '../../review-resource.js';
import { decide, parseReview, reviewAttributes, throwIfInvalid } from '../access-review.js';

/** SelfSubjectAccessReview (`kubectl auth can-i`): the chain's decision for the caller as authenticated (after impersonation). */
export function selfSubjectAccessReviewResource(): ResourceDefinition {
  const kind = selfSubjectAccessReviewKind;
  return reviewResource(authorizationGroup, 'selfsubjectaccessreviews', kind, authorizationV1SelfSubjectAccessReviewMessage, async ({ object, group, user, authorizer, scope }) => {
    const spec = parseReview(selfSubjectAccessReviewSchema, kind, object).spec as SubjectAccessReviewSpec;
    throwIfInvalid(authorizationGroup, kind, [...validateEmptyMetadata(object.metadata), ...validateSelfSubjectAccessReviewSpec(spec)]);
    const status = await decide(authorizer, reviewAttributes(user, spec), scope);
    return { kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: object.spec ?? {}, status };
  });
}
