import { authenticationGroup, newInvalid, selfSubjectReviewKind } from '@plat/api-model';
import type { UserInfo } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { authenticationV1SelfSubjectReviewMessage } from '../../kind-protobuf.generated.js';
import { reviewResource, validateEmptyMetadata } from '../../review-resource.js';

function userInfoObject(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

/** SelfSubjectReview (`kubectl auth whoami`): the caller's user as authenticated (after impersonation). */
export function selfSubjectReviewResource(): ResourceDefinition {
  return reviewResource(authenticationGroup, 'selfsubjectreviews', selfSubjectReviewKind, authenticationV1SelfSubjectReviewMessage, async (req) => {
    const errs = validateEmptyMetadata(req.object.metadata);
    if (errs.length) throw newInvalid({ group: authenticationGroup, kind: selfSubjectReviewKind }, '', errs);
    return {
      kind: selfSubjectReviewKind,
      apiVersion: `${req.group}/v1`,
      metadata: { creationTimestamp: null },
      status: { userInfo: userInfoObject(req.user) },
    };
  });
}
