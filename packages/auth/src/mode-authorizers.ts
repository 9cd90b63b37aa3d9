import type { AuthorizationResult, Authorizer, SubjectRules } from './interface.js';

/** `--authorization-mode=AlwaysAllow`: allows every request. */
export function createAlwaysAllowAuthorizer(): Authorizer {
  return {
    async authorize(): Promise<AuthorizationResult> {
      return { decision: 'Allow', reason: '' };
    },
    authorizeKnown: (): AuthorizationResult => ({ decision: 'Allow', reason: '' }),
    // Kubernetes' alwaysAllowAuthorizer.RulesFor: everything.
    rulesFor: (): SubjectRules => ({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    }),
  };
}

/**
 * `--authorization-mode=AlwaysDeny`. Like Kubernetes it answers no opinion with the reason
 * "Everything is forbidden.", so that an authorizer later in the chain may still allow and a
 * chain that ends here denies with that reason.
 */
export function createAlwaysDenyAuthorizer(): Authorizer {
  return {
    async authorize(): Promise<AuthorizationResult> {
      return { decision: 'NoOpinion', reason: 'Everything is forbidden.' };
    },
    authorizeKnown: (): AuthorizationResult => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
    rulesFor: (): SubjectRules => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
  };
}
