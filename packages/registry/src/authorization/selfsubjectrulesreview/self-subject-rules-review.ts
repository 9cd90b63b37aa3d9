import { authorizationGroup, newBadRequest, selfSubjectRulesReviewKind, selfSubjectRulesReviewSchema } from '@plat/api-model';
import type { ResourceDefinition } from '@plat/server';
import { authorizationV1SelfSubjectRulesReviewMessage } from '../../kind-protobuf.generated.js';
import { reviewResource, validateEmptyMetadata } from '../../review-resource.js';
import { parseReview, throwIfInvalid } from '../access-review.js';

/**
 * SelfSubjectRulesReview (Kubernetes' selfsubjectrulesreview REST; `kubectl auth can-i --list`):
 * the rules the authorizer chain lists for the caller in `spec.namespace` (400 `no namespace on
 * request` without one), and whether the list is incomplete (an authorizer that cannot list its
 * rules, such as a webhook).
 */
export function selfSubjectRulesReviewResource(): ResourceDefinition {
  const kind = selfSubjectRulesReviewKind;
  return reviewResource(authorizationGroup, 'selfsubjectrulesreviews', kind, authorizationV1SelfSubjectRulesReviewMessage, async ({ object, group, user, authorizer }) => {
    const parsed = parseReview(selfSubjectRulesReviewSchema, kind, object);
    throwIfInvalid(authorizationGroup, kind, validateEmptyMetadata(object.metadata));
    const namespace = parsed.spec.namespace ?? '';
    if (namespace === '') throw newBadRequest('no namespace on request');
    const rules = authorizer.rulesFor ? authorizer.rulesFor(user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true };
    return { kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: object.spec ?? {}, status: rules };
  });
}
