import type { ClaimMappings, ClaimValidationRule, ExtraMapping, JWTAuthenticator, UserValidationRule } from '@plat/config';

/** A configuration type without the CEL programs @plat/config compiled: the authenticator compiles the expressions it is given. */
export type Uncompiled<T> = Omit<T, 'program'>;

/**
 * One JWT authenticator of an AuthenticationConfiguration (spec section 2.3, JWTAuthenticator):
 * @plat/config's `JWTAuthenticator`, which the app hands over as loaded, or the same shape
 * written by hand without the compiled programs and with empty lists left out.
 */
export interface JwtAuthenticatorSpec {
  issuer: JWTAuthenticator['issuer'];
  claimValidationRules?: Uncompiled<ClaimValidationRule>[];
  claimMappings: {
    username: Uncompiled<ClaimMappings['username']>;
    groups?: Uncompiled<NonNullable<ClaimMappings['groups']>>;
    uid?: Uncompiled<NonNullable<ClaimMappings['uid']>>;
    extra?: Uncompiled<ExtraMapping>[];
  };
  userValidationRules?: Uncompiled<UserValidationRule>[];
}

/** Asymmetric algorithms accepted by default; `none` and HMAC are never accepted. */
export const defaultSigningAlgorithms = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'];
