import { z } from 'zod';
import { objectMetaSchema } from './object-meta.js';

/** SelfSubjectReview (`authentication.plat.io/v1`): who the server thinks the caller is (`kubectl auth whoami`). */

export const authenticationGroup = 'authentication.plat.io';
export const selfSubjectReviewApiVersion = `${authenticationGroup}/v1`;
export const selfSubjectReviewKind = 'SelfSubjectReview';

export const userInfoSchema = z.object({
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});
export type UserInfo = z.infer<typeof userInfoSchema>;

export const selfSubjectReviewSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema.optional(),
  status: z.object({ userInfo: userInfoSchema.optional() }).optional(),
});
export type SelfSubjectReview = z.infer<typeof selfSubjectReviewSchema>;

/** The answer to a SelfSubjectReview create: the caller's user info, with Kubernetes' creation timestamp left unset. */
export function newSelfSubjectReview(userInfo: UserInfo): SelfSubjectReview {
  return {
    apiVersion: selfSubjectReviewApiVersion,
    kind: selfSubjectReviewKind,
    metadata: { creationTimestamp: null },
    status: { userInfo },
  };
}
