/**
 * One JWT authenticator of an AuthenticationConfiguration (spec section 2.3, JWTAuthenticator),
 * as validated by @plat/config; the app hands it over.
 */
export interface JwtAuthenticatorSpec {
  issuer: {
    url: string;
    discoveryURL?: string;
    certificateAuthority?: string;
    audiences: string[];
    audienceMatchPolicy?: string;
  };
  claimValidationRules?: { claim?: string; requiredValue?: string; expression?: string; message?: string }[];
  claimMappings: {
    username: { claim?: string; prefix?: string; expression?: string };
    groups?: { claim?: string; prefix?: string; expression?: string };
    uid?: { claim?: string; expression?: string };
    extra?: { key: string; valueExpression: string }[];
  };
  userValidationRules?: { expression: string; message?: string }[];
}

/** Asymmetric algorithms accepted by default; `none` and HMAC are never accepted. */
export const defaultSigningAlgorithms = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'];
