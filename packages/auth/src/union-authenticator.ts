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
    // Known only when every authenticator before the one that answers knows its answer too.
    authenticateKnown(req: AuthenticationRequest, scope?: RequestScope): AuthenticationResult | null | undefined {
      for (const a of authenticators) {
        const result = a.authenticateKnown?.(req, scope);
        if (result === undefined) return undefined;
        if (result) return withAuthenticatedGroup(result);
      }
      return null;
    },
  };
}

// A frozen result (shared by the requests of a client) gains its group once; the requests then
// share the frozen answer too, instead of three new objects each. The answer maps to itself, so
// that the authentication filter's second call finds it too.
const withGroupOf = new WeakMap<AuthenticationResult, AuthenticationResult>();

export function withAuthenticatedGroup(result: AuthenticationResult): AuthenticationResult {
  // The lookup first: a known client's request (twice per request: the union, then the
  // authentication filter) costs one WeakMap lookup each, not two `includes` scans of the groups
  // and `Object.isFrozen`, a call into V8's runtime: 25 ns against 50-150 (microbenchmark, load
  // 4; perf put `TestPropertiesIntegrityLevel` at 0.24 µs of a GET; docs/performance.md
  // "apiserver", fourth round).
  const known = withGroupOf.get(result);
  if (known !== undefined) return known;
  const { user } = result;
  if (user.username === anonymousUser) return result;
  if (user.groups.includes(systemAuthenticated) || user.groups.includes(systemUnauthenticated)) return result;
  if (!Object.isFrozen(result)) return { ...result, user: { ...user, groups: [...user.groups, systemAuthenticated] } };
  const shared = Object.freeze({ ...result, user: Object.freeze({ ...user, groups: Object.freeze([...user.groups, systemAuthenticated]) as string[] }) });
  withGroupOf.set(result, shared);
  withGroupOf.set(shared, shared);
  return shared;
}
