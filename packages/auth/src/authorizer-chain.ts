import { aggregateMessages } from '@plat/api-model';
import type { Attributes, AuthorizationResult, Authorizer, RequestScope, SubjectRules } from './interface.js';

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
  function authorizeKnown(attrs: Attributes, scope?: RequestScope): AuthorizationResult | undefined {
    let reasons: string[] | undefined;
    for (const { authorizer } of chain) {
      let result: AuthorizationResult | undefined;
      try {
        result = authorizer.authorizeKnown?.(attrs, scope);
      } catch {
        return undefined;
      }
      if (result === undefined) return undefined;
      if (result.decision === 'Allow' || result.decision === 'Deny') return result;
      if (result.reason) (reasons ??= []).push(result.reason);
    }
    return { decision: 'NoOpinion', reason: reasons ? reasons.join('\n') : '' };
  }
  return {
    async authorize(attrs: Attributes, scope?: RequestScope): Promise<AuthorizationResult> {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const { name, authorizer } of chain) {
        let result: AuthorizationResult;
        try {
          result = await authorizer.authorize(attrs, scope);
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
    // Only when every authorizer may know its answer (no webhook): one that did not would send
    // the request to `authorize`, which would ask those before it again (and count their
    // decisions twice). One that throws leaves the chain to `authorize`, which reports the error.
    authorizeKnown: chain.every((a) => a.authorizer.authorizeKnown) ? authorizeKnown : undefined,
    // Kubernetes' union RulesFor: every authorizer's rules; incomplete when one is (or cannot list).
    rulesFor(user, namespace): SubjectRules {
      const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const { name, authorizer } of chain) {
        if (!authorizer.rulesFor) {
          out.incomplete = true;
          continue;
        }
        let rules: SubjectRules;
        try {
          rules = authorizer.rulesFor(user, namespace);
        } catch (err) {
          out.incomplete = true;
          errors.push(`${name}: ${(err as Error).message}`);
          continue;
        }
        out.resourceRules.push(...rules.resourceRules);
        out.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) out.incomplete = true;
        if (rules.evaluationError) errors.push(rules.evaluationError);
      }
      if (errors.length) out.evaluationError = aggregateMessages(errors);
      return out;
    },
  };
}

/** Only an Allow admits a request; Deny and NoOpinion both end in 403. */
export function isAllowed(result: AuthorizationResult): boolean {
  return result.decision === 'Allow';
}
