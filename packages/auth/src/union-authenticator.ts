import { aggregateAuthenticationErrors } from './token-authenticator.js';
import {
  anonymousUser,
  systemAuthenticated,
  systemUnauthenticated,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  type RequestScope,
} from './interface.js';

/**
 * Tries request authenticators in order (client certificate first, then tokens, then anonymous
 * in issue 6's order). The first that recognises the request wins; errors of the others are
 * kept and, when nobody recognised the request, returned together (the request gets 401).
 * A recognised non-anonymous user gains `system:authenticated` unless it already is in
 * `system:authenticated` or `system:unauthenticated` (Kubernetes' AuthenticatedGroupAdder).
 */
export function createUnionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(req: AuthenticationRequest, scope?: RequestScope): Promise<AuthenticationResult | null> {
      const errors: Error[] = [];
      for (const a of authenticators) {
        let result: AuthenticationResult | null;
        try {
          result = await a.authenticate(req, scope);
        } catch (err) {
          errors.push(err as Error);
          continue;
        }
        if (result) return withAuthenticatedGroup(result);
      }
      if (errors.length > 0) throw aggregateAuthenticationErrors(errors);
      return null;
    },
  };
}

export function withAuthenticatedGroup(result: AuthenticationResult): AuthenticationResult {
  const { user } = result;
  if (user.username === anonymousUser) return result;
  if (user.groups.includes(systemAuthenticated) || user.groups.includes(systemUnauthenticated)) return result;
  return { ...result, user: { ...user, groups: [...user.groups, systemAuthenticated] } };
}
