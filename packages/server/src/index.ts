export {
  DynamicResources,
  createApiServer,
  defaultLimits,
  maxDynamicResources,
  type ApiServer,
  type ApiServerOptions,
  type ServerAddress,
  type ServerLimits,
} from './api-server.js';
export type { ServerAudit } from './filters/audit.js';
export { LoopbackClient, apiserverUser, type LoopbackRequest, type LoopbackResponse } from './loopback.js';
export type { ServerLogger } from './logger.js';
export { HealthCheckError, type HealthCheck } from './health.js';
export { defaultVersionInfo, type VersionInfo } from './version.js';
export {
  allVerbs,
  servedResources,
  servedVersionsOf,
  type AdmissionOperation,
  type AdmissionRequest,
  type CreateOnlyRequest,
  type OpenApiKind,
  type ResourceDefinition,
  type ResourceStrategy,
  type ServedResource,
  type SubresourceDefinition,
  type TableColumn,
} from './resource.js';
export { ageCell, ageColumn, nameColumn } from './table.js';
export type { OpenApiParameter, OpenApiSchema } from './openapi/types.js';
export {
  decodeProtobufObject,
  labelSelectorMessage,
  listMetaMessage,
  objectMetaMessage,
  protobufMediaType,
  selectorRequirementMessage,
  type ProtobufField,
  type ProtobufMessage,
} from './protobuf.js';
export { FastGauge } from './fast-metrics.js';
export { unreadBodyLingerMs } from './unread-body.js';
export { requestInfoFor, type RequestInfo } from './request-info.js';
export { RequestCallOptions, type RequestContext } from './context.js';
export { currentTraceContext, routeTemplate, traceAuthorizer, traceHeadersInjector } from './tracing.js';
