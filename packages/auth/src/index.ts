export * from './interface.js';
export {
  ChainVerificationError,
  extKeyUsageClientAuth,
  parseCertificateBundle,
  verifyCertificateChain,
  type ChainVerificationErrorCode,
  type VerifyChainOptions,
} from './certificate-chain.js';
export { createX509Authenticator, type X509AuthenticatorOptions } from './x509-authenticator.js';
export { CsvParseError, parseGoCsv } from './go-csv.js';
export { TokenFileError, parseTokenFile, type ParsedTokenFile, type TokenFileWarning } from './token-file.js';
export {
  aggregateAuthenticationErrors,
  createBearerTokenAuthenticator,
  createStaticTokenAuthenticator,
  createUnionTokenAuthenticator,
  type TokenAuthenticator,
} from './token-authenticator.js';
export { createUnionAuthenticator, withAuthenticatedGroup } from './union-authenticator.js';
export {
  apiGroupMatches,
  nonResourceURLMatches,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  rulesAllow,
  verbMatches,
} from './rbac/rule-matching.js';
export { RbacPolicyStore, type RbacKind, type RbacObjects, type RbacRuleSource } from './rbac/rule-source.js';
export type { BindingKind } from './rbac/subject-index.js';
export {
  RbacRuleResolutionError,
  RbacRuleResolver,
  describeRuleOrigin,
  type RoleReferenceRules,
  type RuleOrigin,
  type RuleVisitor,
} from './rbac/rule-resolver.js';
export { RbacAuthorizer } from './rbac/rbac-authorizer.js';
export { breakdownRule, compactRuleString, compactRules, covers } from './rbac/policy-comparator.js';
export {
  bindingAuthorized,
  checkBindingEscalation,
  checkRoleEscalation,
  confirmNoEscalation,
  escalationAllowed,
  roleEscalationAuthorized,
  type EscalationCheckContext,
  type RbacRequest,
} from './rbac/escalation.js';
export {
  aggregateToAdminLabel,
  aggregateToEditLabel,
  aggregateToViewLabel,
  autoupdateAnnotation,
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  bootstrappingLabel,
  bootstrappingLabelValue,
  clusterTrustBundleReaderRole,
  systemMonitoring,
} from './rbac/bootstrap-policy.js';
export {
  computeReconciledRole,
  computeReconciledRoleBinding,
  type BindingReconcileResult,
  type ReconcileOperation,
  type RoleReconcileResult,
} from './rbac/reconciliation.js';
export { createNodeAuthorizer, nodeIdentity, nodeRules, nodeUsernamePrefix, nodesGroup } from './node-authorizer.js';
export { builtinRoles, createBuiltinAuthorizer, type BuiltinAuthorizerOptions, type BuiltinRole } from './builtin-authorizer.js';
export { createAlwaysAllowAuthorizer, createAlwaysDenyAuthorizer } from './mode-authorizers.js';
export { createAuthorizerChain, isAllowed, type NamedAuthorizer } from './authorizer-chain.js';
export {
  ImpersonationError,
  authenticationGroup,
  forbiddenMessage,
  hasImpersonationHeaders,
  impersonate,
  impersonateExtraHeaderPrefix,
  impersonateGroupHeader,
  impersonateUidHeader,
  impersonateUserHeader,
  splitServiceAccountUsername,
} from './impersonation.js';
export { JwtAuthenticator, type JwtAuthenticatorOptions } from './jwt/jwt-authenticator.js';
export { defaultSigningAlgorithms, type JwtAuthenticatorSpec } from './jwt/jwt-authenticator-spec.js';
export { OidcDiscoveryError, OidcKeySet, type OidcKeySetOptions } from './jwt/oidc-key-set.js';
export { ClaimMapper, credentialIdExtraKey } from './jwt/claim-mapper.js';
export { WebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook/webhook-authorizer.js';
export type { WebhookAuthorizerSpec, WebhookConnection } from './webhook/webhook-authorizer-spec.js';
export { WebhookMetrics } from './webhook/webhook-metrics.js';
export {
  WebhookAnswerError,
  parseSubjectAccessReviewStatus,
  subjectAccessReviewBody,
  subjectAccessReviewSpec,
  type SubjectAccessReviewSpecV1,
  type SubjectAccessReviewStatus,
} from './webhook/subject-access-review.js';
export { createAnonymousAuthenticator, withAnonymous, type AnonymousSpec } from './anonymous-authenticator.js';
export { ConfigReloader, Reloadable, type ConfigReloaderOptions } from './reload/config-reloader.js';
