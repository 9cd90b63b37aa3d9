import {
  authorizationGroup,
  subjectAccessReviewKind,
  subjectAccessReviewSchema,
  validateSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
} from '@plat/api-model';
import type { UserInfo } from '@plat/auth';
import { objectMetaMessage, protobufMessage, type ResourceDefinition } from '@plat/server';
import { reviewResource, validateEmptyMetadata } from '../../review-resource.js';
import { decide, parseReview, reviewAttributes, subjectAccessReviewSpecMessage, throwIfInvalid } from '../access-review.js';

/** SubjectAccessReview: the chain's decision for the subject in the spec (its caller needs `create` on it). */
export function subjectAccessReviewResource(): ResourceDefinition {
  const kind = subjectAccessReviewKind;
  const protobuf = { 1: protobufMessage('metadata', objectMetaMessage), 2: protobufMessage('spec', subjectAccessReviewSpecMessage) };
  return reviewResource(authorizationGroup, 'subjectaccessreviews', kind, protobuf, async ({ object, group, authorizer, scope }) => {
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
