import type { Attributes, AuthorizationResult, Authorizer } from './interface.js';

export interface NamedAuthorizer {
  /** Names the authorizer in errors and metrics (`--authorization-mode` value or config `name`). */
  name: string;
  authorizer: Authorizer;
}

/**
 * The ordered authorizer chain (Kubernetes' union authorizer): each authorizer answers Allow,
 * Deny or NoOpinion; the first Allow or Deny wins. When all have no opinion the chain answers
 * NoOpinion with the reasons joined by newlines, which callers treat as a denial (only Allow
 * admits a request). An authorizer that throws counts as no opinion and its error is appended
 * to the reason, so one failing authorizer cannot allow anything.
 */
export function createAuthorizerChain(authorizers: readonly (Authorizer | NamedAuthorizer)[]): Authorizer {
  const chain = authorizers.map((a, i) => ('authorizer' in a ? a : { name: `authorizer-${i}`, authorizer: a }));
  return {
    async authorize(attrs: Attributes, opts?: { signal?: AbortSignal }): Promise<AuthorizationResult> {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const { name, authorizer } of chain) {
        let result: AuthorizationResult;
        try {
          result = await authorizer.authorize(attrs, opts);
        } catch (err) {
          errors.push(`${name}: ${(err as Error).message}`);
          continue;
        }
        if (result.decision === 'Allow' || result.decision === 'Deny') return result;
        if (result.reason) reasons.push(result.reason);
      }
      const reason = [...reasons, ...errors].join('\n');
      return { decision: 'NoOpinion', reason };
    },
  };
}

/** Only an Allow admits a request; Deny and NoOpinion both end in 403. */
export function isAllowed(result: AuthorizationResult): boolean {
  return result.decision === 'Allow';
}
