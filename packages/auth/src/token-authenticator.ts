import {
  AuthenticationError,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  type UserInfo,
  type RequestScope,
} from './interface.js';

/**
 * Authenticates a bearer token (Kubernetes' authenticator.Token): the user when the token is
 * recognised, null when it is not this authenticator's, AuthenticationError when it is but
 * fails validation.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, opts?: { signal?: AbortSignal }): Promise<AuthenticationResult | null>;
}

/** A static token table, as loaded from `--token-auth-file` (see parseTokenFile). */
export function createStaticTokenAuthenticator(tokens: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    async authenticateToken(token) {
      const user = tokens.get(token);
      return user ? { user: { ...user, groups: [...user.groups] } } : null;
    },
  };
}

/** Tries token authenticators in order; the first to recognise the token wins. */
export function createUnionTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    async authenticateToken(token, opts) {
      const errors: Error[] = [];
      for (const a of authenticators) {
        try {
          const result = await a.authenticateToken(token, opts);
          if (result) return result;
        } catch (err) {
          errors.push(err as Error);
        }
      }
      if (errors.length > 0) throw aggregateAuthenticationErrors(errors);
      return null;
    },
  };
}

/** Go's utilerrors.NewAggregate text: one error as is, several as `[a, b]`. */
export function aggregateAuthenticationErrors(errors: readonly Error[]): AuthenticationError {
  if (errors.length === 1 && errors[0] instanceof AuthenticationError) return errors[0];
  const text = errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`;
  return new AuthenticationError(text);
}

function headerValue(headers: AuthenticationRequest['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Kubernetes' bearer-token request authenticator: reads `Authorization: Bearer <token>`
 * (scheme case-insensitive). No such header, another scheme or an empty token: null. A token
 * that no token authenticator recognises: "invalid bearer token".
 */
export function createBearerTokenAuthenticator(tokens: TokenAuthenticator): Authenticator {
  return {
    async authenticate(req: AuthenticationRequest, scope?: RequestScope): Promise<AuthenticationResult | null> {
      const auth = headerValue(req.headers, 'authorization')?.trim();
      if (!auth) return null;
      const parts = auth.split(' ');
      if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return null;
      const token = parts[1];
      // Empty bearer tokens aren't valid credentials of this kind.
      if (token === '') return null;
      const result = await tokens.authenticateToken(token, { signal: scope ? scope.signal : req.signal });
      if (!result) throw new AuthenticationError('invalid bearer token');
      return result;
    },
  };
}
