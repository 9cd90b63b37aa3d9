export {
  createApiServer,
  defaultLimits,
  type ApiServer,
  type ApiServerOptions,
  type ServerAddress,
  type ServerLimits,
} from './api-server.js';
export type { ServerAudit } from './filters/audit.js';
export type { ServerLogger } from './logger.js';
export { HealthCheckError, type HealthCheck } from './health.js';
export { defaultVersionInfo, type VersionInfo } from './version.js';
export {
  allVerbs,
  type AdmissionOperation,
  type AdmissionRequest,
  type ResourceDefinition,
  type ResourceStrategy,
  type TableColumn,
} from './resource.js';
export { ageCell, ageColumn, nameColumn } from './table.js';
export type { OpenApiParameter, OpenApiSchema } from './openapi/types.js';
export {
  anchorExpiryWarningWindowMs,
  clusterTrustBundleResource,
  clusterTrustBundleStrategy,
  clusterTrustBundleWarnings,
  isAuthorizedForSigner,
  maxTrustBundleSummaries,
  trustBundleSummary,
  type TrustBundleSummary,
} from './resources/cluster-trust-bundle.js';
export {
  ClusterTrustBundleSignerStats,
  clusterTrustBundleMetricNames,
  maxClusterTrustBundleSignerSeries,
  otherSignersLabel,
  startClusterTrustBundleMetrics,
  type ClusterTrustBundleMetrics,
} from './resources/cluster-trust-bundle-metrics.js';
export { rbacResources, type RbacResourcesOptions } from './resources/rbac-resources.js';
export { namespaceResource, namespaceStrategy } from './resources/namespace.js';
export { requestInfoFor, type RequestInfo } from './request-info.js';
export { RequestCallOptions, requestOfCall, type RequestContext } from './context.js';
export { currentTraceContext, routeTemplate, traceAuthorizer, traceHeadersInjector } from './tracing.js';
