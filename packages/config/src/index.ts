export {
  anonymousFlagConflict,
  certificateAuthorityError,
  isReservedExtraKey,
  loadAuthenticationConfiguration,
  maxJWTAuthenticators,
} from './authentication.js';
export type {
  AnonymousAuthConfig,
  AuthenticationConfiguration,
  AuthenticationLoadOptions,
  ClaimMappings,
  ClaimOrExpression,
  ClaimValidationRule,
  ExtraMapping,
  Issuer,
  JWTAuthenticator,
  PrefixedClaimOrExpression,
  UserValidationRule,
} from './authentication.js';
export {
  defaultAuthorizedTTL,
  defaultAuthorizerTypes,
  defaultRepeatableAuthorizerTypes,
  defaultUnauthorizedTTL,
  loadAuthorizationConfiguration,
  maxMatchConditions,
  maxWebhookTimeoutMs,
} from './authorization.js';
export type {
  AuthorizationConfiguration,
  AuthorizationLoadOptions,
  AuthorizerConfiguration,
  WebhookConfiguration,
  WebhookConnectionInfo,
  WebhookMatchCondition,
} from './authorization.js';
export { loadEgressSelectorConfiguration } from './egress-selector.js';
export type {
  EgressSelection,
  EgressSelectionName,
  EgressSelectorConfiguration,
  EgressSelectorLoadOptions,
  ProxyProtocol,
  TLSConfig,
  Transport,
} from './egress-selector.js';
export { defaultTracingEndpoint, loadTracingConfiguration, maxSamplingRatePerMillion } from './tracing.js';
export type { TracingConfiguration } from './tracing.js';
export { auditLevels, auditPolicyAPIVersions, auditStages, loadAuditPolicy } from './audit-policy.js';
export type { AuditGroupResources, AuditLevel, AuditPolicy, AuditPolicyRule, AuditStage } from './audit-policy.js';
export { DecodeError, decodeConfigText, maxConfigFileBytes, maxNestingDepth } from './decode.js';
export type { ConfigKind, LoadResult } from './document.js';
export {
  anonymousFlagConflictMessage,
  authorizationFlagsConflictMessage,
  oidcFlagsConflictMessage,
  validateLegacyFlags,
} from './legacy-flags.js';
export type { LegacyFlagInput } from './legacy-flags.js';
export { authorizationConfigurationFromFlags, validateAuthorizationFlags } from './authorization-flags.js';
export type { AuthorizationFlags } from './authorization-flags.js';
export { authenticationConfigurationFromOIDCFlags, defaultOIDCUsernameClaim, oidcUsernamePrefix } from './oidc-flags.js';
export type { OIDCFlags } from './oidc-flags.js';
export { formatValidationReport, validateConfigFiles } from './validate-files.js';
export type { ConfigFileResult, ConfigFiles, ValidateConfigFilesOptions, ValidationReport } from './validate-files.js';
export { apiVersion } from './schemas.js';
