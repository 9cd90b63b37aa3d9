export { defaultAuthorizationMode, defaultOidcSigningAlgs, supportedAuthorizerTypes, type AuthOptions } from './auth-options.js';
export {
  anonymousSpec,
  buildAuthentication,
  jwtNotReady,
  loadAuthentication,
  type AuthenticationInstance,
  type AuthenticationParts,
} from './authentication.js';
export { buildAuthorization, loadAuthorization, type AuthorizationHooks, type AuthorizationInstance } from './authorization.js';
export { webhookConnection } from './webhook-connection.js';
export { AuthenticationConfigError, AuthorizationConfigError, IdentityFileError } from './identity-errors.js';
export { ServerIdentity } from './server-identity.js';
export { BootstrapPolicyError, createServedResources, servedResourceDefinitions, type ServedResources, type ServedResourcesOptions } from './served-resources.js';
export { migrateStorage, type ResourceMigration, type StorageMigrationOptions } from './storage-migration.js';
export { startIdentity, type Identity, type IdentityOptions } from './identity.js';
export { setupEgress, webhookAuthorizerOptions, type Egress } from './egress.js';
export { startEtcdEgress, type EtcdEgress } from './etcd-egress.js';
export { setupTracing } from './tracing.js';
export { EgressSetupError, setupEgressTracing, type EgressTracing } from './egress-tracing.js';
export { AuditConfigError, auditWebhookConnection, setupAudit, type AuditSetupOptions } from './audit.js';
