/**
 * zod schemas of the four `apiserver.plat.io/v1beta1` kinds, field for field as the spec lists
 * them (section 2.3). They check JSON types and reject unknown fields; which fields are required
 * and what values they may hold is the business of the validators, which word those errors as
 * Kubernetes does. Durations stay strings here and are parsed by the validators.
 */
import { FieldError, fieldError } from '@plat/api-model';
import { z } from 'zod';
import { DecodeError, formatPath } from './decode.js';

export const apiVersion = 'apiserver.plat.io/v1beta1';

const str = () => z.string().optional();
const strList = () => z.array(z.string()).optional();

const typeMeta = {
  apiVersion: str(),
  kind: str(),
};

// AuthenticationConfiguration
export const claimValidationRuleSchema = z.strictObject({
  claim: str(),
  requiredValue: str(),
  expression: str(),
  message: str(),
});

export const prefixedClaimOrExpressionSchema = z.strictObject({
  claim: str(),
  prefix: str(),
  expression: str(),
});

export const claimOrExpressionSchema = z.strictObject({
  claim: str(),
  expression: str(),
});

export const extraMappingSchema = z.strictObject({
  key: str(),
  valueExpression: str(),
});

export const claimMappingsSchema = z.strictObject({
  username: prefixedClaimOrExpressionSchema.optional(),
  groups: prefixedClaimOrExpressionSchema.optional(),
  uid: claimOrExpressionSchema.optional(),
  extra: z.array(extraMappingSchema).optional(),
});

export const userValidationRuleSchema = z.strictObject({
  expression: str(),
  message: str(),
});

export const issuerSchema = z.strictObject({
  url: str(),
  discoveryURL: str(),
  certificateAuthority: str(),
  audiences: strList(),
  audienceMatchPolicy: str(),
});

export const jwtAuthenticatorSchema = z.strictObject({
  issuer: issuerSchema.optional(),
  claimValidationRules: z.array(claimValidationRuleSchema).optional(),
  claimMappings: claimMappingsSchema.optional(),
  userValidationRules: z.array(userValidationRuleSchema).optional(),
});

export const anonymousAuthConfigSchema = z.strictObject({
  enabled: z.boolean().optional(),
  conditions: z.array(z.strictObject({ path: str() })).optional(),
});

export const authenticationConfigurationSchema = z.strictObject({
  ...typeMeta,
  jwt: z.array(jwtAuthenticatorSchema).optional(),
  anonymous: anonymousAuthConfigSchema.optional(),
});

// AuthorizationConfiguration
export const webhookConfigurationSchema = z.strictObject({
  authorizedTTL: str(),
  unauthorizedTTL: str(),
  timeout: str(),
  subjectAccessReviewVersion: str(),
  matchConditionSubjectAccessReviewVersion: str(),
  failurePolicy: str(),
  connectionInfo: z
    .strictObject({
      type: str(),
      platConfigFile: str(),
    })
    .optional(),
  matchConditions: z.array(z.strictObject({ expression: str() })).optional(),
});

export const authorizerConfigurationSchema = z.strictObject({
  type: str(),
  name: str(),
  webhook: webhookConfigurationSchema.optional(),
});

export const authorizationConfigurationSchema = z.strictObject({
  ...typeMeta,
  authorizers: z.array(authorizerConfigurationSchema).optional(),
});

// EgressSelectorConfiguration
export const tlsConfigSchema = z.strictObject({
  caBundle: str(),
  clientKey: str(),
  clientCert: str(),
  tlsServerName: str(),
});

export const transportSchema = z.strictObject({
  tcp: z.strictObject({ url: str(), tlsConfig: tlsConfigSchema.optional() }).optional(),
  uds: z.strictObject({ udsName: str() }).optional(),
});

export const egressSelectionSchema = z.strictObject({
  name: str(),
  connection: z
    .strictObject({
      proxyProtocol: str(),
      transport: transportSchema.optional(),
    })
    .optional(),
});

export const egressSelectorConfigurationSchema = z.strictObject({
  ...typeMeta,
  egressSelections: z.array(egressSelectionSchema).optional(),
});

// TracingConfiguration
const int32 = z
  .number()
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

export const tracingConfigurationSchema = z.strictObject({
  ...typeMeta,
  endpoint: str(),
  samplingRatePerMillion: int32.optional(),
});

export type AuthenticationConfigurationInput = z.infer<typeof authenticationConfigurationSchema>;
export type JWTAuthenticatorInput = z.infer<typeof jwtAuthenticatorSchema>;
export type AuthorizationConfigurationInput = z.infer<typeof authorizationConfigurationSchema>;
export type WebhookConfigurationInput = z.infer<typeof webhookConfigurationSchema>;
export type EgressSelectorConfigurationInput = z.infer<typeof egressSelectorConfigurationSchema>;
export type TracingConfigurationInput = z.infer<typeof tracingConfigurationSchema>;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

const expectedText: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean',
  number: 'a number',
  int: 'an integer',
  array: 'a list',
  object: 'an object',
};

/**
 * Decodes a plain value against a kind's schema. Unknown fields print as Kubernetes' strict
 * decoder prints them (`unknown field "jwt[0].isuer"`), wrong JSON types as
 * `path: Invalid value: <v>: must be a string`.
 */
export function parseWithSchema<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; errors: FieldError[] } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    const segments = issue.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number');
    const path = formatPath(segments);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = formatPath([...segments, key]);
        errors.push(new DecodeError(field, `unknown field "${field}"`));
      }
    } else if (issue.code === 'invalid_type') {
      const actual = valueAt(value, issue.path);
      const expected = expectedText[issue.expected] ?? issue.expected;
      errors.push(fieldError.invalid(path, actual, `must be ${expected}, not ${jsonTypeOf(actual)}`));
    } else if (issue.code === 'too_big' || issue.code === 'too_small') {
      errors.push(fieldError.invalid(path, valueAt(value, issue.path), 'must fit in a 32-bit signed integer'));
    } else {
      errors.push(fieldError.invalid(path, valueAt(value, issue.path), issue.message));
    }
  }
  return { ok: false, errors };
}
