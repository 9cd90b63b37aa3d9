import type { ResourceDefinition } from '@plat/server';
import { selfSubjectReviewResource } from './authentication/selfsubjectreview/self-subject-review.js';
import { selfSubjectAccessReviewResource } from './authorization/selfsubjectaccessreview/self-subject-access-review.js';
import { selfSubjectRulesReviewResource } from './authorization/selfsubjectrulesreview/self-subject-rules-review.js';
import { subjectAccessReviewResource } from './authorization/subjectaccessreview/subject-access-review.js';

/** The review APIs, in the order discovery lists them: SelfSubjectReview, then the three access reviews. */
export function reviewResources(): ResourceDefinition[] {
  return [selfSubjectReviewResource(), selfSubjectAccessReviewResource(), selfSubjectRulesReviewResource(), subjectAccessReviewResource()];
}
