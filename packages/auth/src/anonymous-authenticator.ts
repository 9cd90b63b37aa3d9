import type { AnonymousAuthConfig } from '@plat/config';
import {
  anonymousUser,
  systemUnauthenticated,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  type RequestScope,
} from './interface.js';

/**
 * The `anonymous` section of an AuthenticationConfiguration (@plat/config's AnonymousAuthConfig):
 * when `conditions` is non-empty, anonymous access only for requests to one of these exact paths.
 */
export type AnonymousSpec = Omit<AnonymousAuthConfig, 'conditions'> & Partial<Pick<AnonymousAuthConfig, 'conditions'>>;

/**
 * Kubernetes' anonymous authenticator: the request becomes `system:anonymous` in group
 * `system:unauthenticated`, on every path or, with conditions, only on the listed paths.
 */
export function createAnonymousAuthenticator(spec: AnonymousSpec): Authenticator {
  const paths = new Set((spec.conditions ?? []).map((c) => c.path));
  const answer = (req: AuthenticationRequest): AuthenticationResult | null => {
    if (!spec.enabled) return null;
    if (paths.size > 0 && !paths.has(req.path)) return null;
    return { user: { username: anonymousUser, groups: [systemUnauthenticated] } };
  };
  return {
    authenticate: async (req) => answer(req),
    authenticateKnown: answer,
  };
}

/**
 * Adds anonymous access after the credential authenticators the way kube-apiserver does
 * (union.NewFailOnError): a request that carries an invalid credential still fails with 401;
 * only a request with no credential at all becomes anonymous.
 */
export function withAnonymous(credentials: Authenticator, spec: AnonymousSpec | undefined): Authenticator {
  if (!spec?.enabled) return credentials;
  const anonymous = createAnonymousAuthenticator(spec);
  return {
    async authenticate(req: AuthenticationRequest, scope?: RequestScope): Promise<AuthenticationResult | null> {
      const result = await credentials.authenticate(req, scope);
      return result ?? anonymous.authenticate(req);
    },
    authenticateKnown(req: AuthenticationRequest, scope?: RequestScope): AuthenticationResult | null | undefined {
      const result = credentials.authenticateKnown?.(req, scope);
      return result === undefined ? undefined : (result ?? anonymous.authenticateKnown!(req));
    },
  };
}
