import type { CelProgram } from '@plat/cel';
import type { ClaimMappings, ClaimValidationRule, ExtraMapping, JWTAuthenticator, UserValidationRule } from '@plat/config';

/**
 * A configuration type whose CEL program may be left out: the authenticator uses the programs
 * @plat/config compiled as they are, and compiles an expression given without its program.
 */
export type Uncompiled<T> = Omit<T, 'program'> & { program?: CelProgram };

/**
 * One JWT authenticator of an AuthenticationConfiguration (spec section 2.3, JWTAuthenticator):
 * @plat/config's `JWTAuthenticator`, handed over as loaded (its compiled programs are used, not
 * compiled again), or the same shape written by hand without the programs and with empty lists
 * left out.
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
