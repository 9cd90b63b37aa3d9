import type { Registry } from 'prom-client';
import type { Authenticator, Authorizer } from '@plat/auth';
import type { Storage } from '@plat/storage';
import type { Tracing } from '@plat/telemetry';
import { Discovery } from './discovery.js';
import type { DynamicResources } from './dynamic-resources.js';
import type { ServerAudit } from './filters/audit.js';
import { HealthCheckError, type HealthCheck } from './health.js';
import { instrumentStorage } from './instrumented-storage.js';
import { silentLogger, type ServerLogger } from './logger.js';
import { createServerMetrics, registerStorageMemoryMetrics, type ServerMetrics } from './metrics.js';
import { allDefinitions } from './openapi/operations.js';
import type { OwnGroupOf } from './filters/authorization.js';
import { requestInfoFor, type RequestInfo } from './request-info.js';
import { servedResources, type ResourceDefinition, type ServedResource } from './resource.js';
import { EncodedObjects, defaultEncodedCacheBytes } from './rest/encoded-objects.js';
import { namespaceLifecycle, servesNamespaces } from './rest/namespace-lifecycle.js';
import { newResourceScope, type ResourceScope } from './rest/scope.js';
import { SchemaSet } from './schema-walk.js';
import { defaultConnectionLimits, type ConnectionLimits } from './secure-serving.js';
import { ServerLifecycle } from './serving.js';
import { traceAdmission, traceAuthenticator, traceAuthorization, traceStorage } from './tracing.js';
import { defaultVersionInfo, type VersionInfo } from './version.js';

export interface ServerLimits extends Omit<ConnectionLimits, 'requestReceiveTimeoutMs'> {
  /** --max-requests-inflight: concurrent read-only requests (0 = unlimited). Default 400. */
  maxRequestsInFlight: number;
  /** --max-mutating-requests-inflight: concurrent mutating requests (0 = unlimited). Default 200. */
  maxMutatingRequestsInFlight: number;
  /** --request-timeout in ms (0 = none); watches are exempt. Default 60 000. */
  requestTimeoutMs: number;
  /** Largest request body; larger ones get 413. Default 3 MiB. */
  maxBodyBytes: number;
  /** --min-request-timeout: watches without timeoutSeconds end after [min, 2·min) seconds. Default 1800. */
  minRequestTimeoutSeconds: number;
  /** Bytes of served JSON kept for GET and LIST (EncodedObjects). Default 64 MiB. */
  encodedCacheBytes: number;
}

export const defaultLimits: ServerLimits = {
  maxRequestsInFlight: 400,
  maxMutatingRequestsInFlight: 200,
  requestTimeoutMs: 60_000,
  maxBodyBytes: 3 * 1024 * 1024,
  minRequestTimeoutSeconds: 1800,
  encodedCacheBytes: defaultEncodedCacheBytes,
  ...defaultConnectionLimits,
};

/** What a caller of createApiServer gives: the options, before defaults and wrappers. */
export interface ApiServerOptions {
  storage: Storage;
  authenticator: Authenticator;
  authorizer: Authorizer;
  resources: ResourceDefinition[];
  /**
   * The serving certificate and key, and the CA of client certificates: needed to listen(). A
   * server without it serves only its loopback client (no TCP, no TLS).
   */
  tls?: { cert: string | Buffer; key: string | Buffer; clientCA?: string | Buffer };
  limits?: Partial<ServerLimits>;
  logger?: ServerLogger;
  version?: Partial<VersionInfo>;
  /** HTTP/2 (ALPN h2) next to HTTP/1.1 on the same port. Default true. */
  http2?: boolean;
  /** Honour Impersonate-* headers. Default true. */
  impersonation?: boolean;
  /** Bookmark period of watches with allowWatchBookmarks (default: the storage's, about 60 s). */
  watchBookmarkIntervalMs?: number;
  /** How long /readyz fails before the listener closes on shutdown. Default 0. */
  shutdownDelayMs?: number;
  /** How long close() waits for in-flight requests before cutting connections. Default 30 s. */
  shutdownTimeoutMs?: number;
  readyzChecks?: HealthCheck[];
  livezChecks?: HealthCheck[];
  /**
   * Registry for /metrics: the server adds its metrics to it. Pass @plat/telemetry's
   * createMetricsRegistry() to share one registry with egress and auth; by default the server
   * creates one the same way (process metrics included).
   */
  metricsRegistry?: Registry;
  /**
   * Request tracing (@plat/telemetry createTracing): a span per request with children for
   * authentication, authorization, admission and storage. Off (or disabledTracing()) adds nothing.
   */
  tracing?: Tracing;
  /**
   * Auditing (@plat/audit): the Policy's evaluator, the backend (log, webhook, in their modes) and
   * the metrics (createAuditMetrics on the same registry). Without it, no filter is installed.
   */
  audit?: ServerAudit;
  /**
   * Resources served from a point in the run on (CustomResourceDefinitions' resources): each
   * change rebuilds the REST scopes, discovery and OpenAPI. A resource whose group, version and
   * name the server already serves from `resources` is not served.
   */
  dynamicResources?: DynamicResources;
}

/**
 * The options completed (kube's CompletedConfig): defaults filled in, and every wrapper applied
 * here and nowhere else: tracing around the authenticator, the authorizer, admission and storage;
 * storage latency metrics per resource. What the chain, the routes and serving read.
 */
export interface CompletedConfig {
  /** The authenticator and authorizer as the filters and handlers call them (traced if tracing is on). */
  authenticator: Authenticator;
  authorizer: Authorizer;
  /**
   * The resources as served under each of their group names (their admission traced if tracing is
   * on). With `dynamic`, this array, `scopes`, `servedResources` and `discovery` change in place.
   */
  resources: ServedResource[];
  /** The resources served at run time; its `version` says when what is built from `resources` is stale. */
  dynamic?: DynamicResources;
  /** Stops following `dynamic` (the server closed). */
  stopDynamic(): void;
  storage: Storage;
  limits: ServerLimits;
  logger: ServerLogger;
  versionInfo: VersionInfo;
  metrics: ServerMetrics;
  /** Only when tracing is enabled: with it off, no filter and no wrapper is installed. */
  tracing?: Tracing;
  impersonation: boolean;
  audit?: ServerAudit;
  discovery: Discovery;
  /** REST scopes by `group/version/resource`, their storage instrumented (and traced). */
  scopes: ReadonlyMap<string, ResourceScope>;
  /**
   * `group/version/resource` of everything served, and `group/version/resource/subresource` of
   * the subresources, for metric labels (a path nobody serves must not grow the label sets).
   */
  servedResources: ReadonlySet<string>;
  /** The own group of a resource served under another name (authorization sees the own one). */
  ownGroupOf: OwnGroupOf;
  /** Request info of a method, path and query (kube's RequestInfoFactory). */
  requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo;
  readyzChecks: HealthCheck[];
  livezChecks: HealthCheck[];
  tls: ApiServerOptions['tls'];
  http2: boolean;
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  /** In-flight requests, watches to end and the shutting-down flag, shared by /readyz, the chain and serving. */
  lifecycle: ServerLifecycle;
}

/** Options → completed config: defaults, metrics, every tracing wrapper, the REST scopes. */
export function completeConfig(options: ApiServerOptions): CompletedConfig {
  const tracing = options.tracing?.enabled ? options.tracing : undefined;
  const authenticator = tracing ? traceAuthenticator(tracing, options.authenticator) : options.authenticator;
  const authorizer = tracing ? traceAuthorization(tracing, options.authorizer) : options.authorizer;
  const resources = servedResources(tracing ? options.resources.map((def) => traceAdmission(tracing, def)) : options.resources);
  const limits: ServerLimits = { ...defaultLimits, ...options.limits };
  const { storage } = options;
  const metrics = createServerMetrics(options.metricsRegistry, { storageWatchDrops: storage.watchEventDrops && (() => storage.watchEventDrops!()) });
  if (storage.memoryStats) registerStorageMemoryMetrics(metrics.registry, () => storage.memoryStats!());
  const lifecycle = new ServerLifecycle();

  const scopes = new Map<string, ResourceScope>();
  const served = new Set<string>();
  const encodings = new EncodedObjects(limits.encodedCacheBytes);
  // The group authorization sees for a request under another name: the resource's own where it
  // declares authorizedAsOwnGroup (the reviews), else the name the client wrote.
  const aliases = new Map<string, Map<string, string>>();
  const ownGroupOf: OwnGroupOf = (group, resource) => aliases.get(group)?.get(resource) ?? group;
  const discovery = new Discovery(resources);

  // Fills the scopes, metric labels, aliases and discovery from `resources` (again after each
  // change of the dynamic resources: every scope is rebuilt, with one schema set for all).
  const build = () => {
    const schemas = new SchemaSet(allDefinitions(resources));
    const protobufKinds = new Map(resources.flatMap((def) => (def.protobuf ? [[def.kind, def.protobuf] as const] : [])));
    const lifecycleAdmission = servesNamespaces(resources) ? namespaceLifecycle(storage) : undefined;
    scopes.clear();
    for (const def of resources) {
      const type = `${def.resource}.${def.group}`;
      const instrumented = instrumentStorage(storage, metrics, type);
      scopes.set(
        `${def.group}/${def.version}/${def.resource}`,
        newResourceScope(def, {
          storage: tracing ? traceStorage(tracing, instrumented, type) : instrumented,
          authorizer,
          schemas,
          protobufKinds,
          metrics,
          logger: options.logger,
          namespaceLifecycle: def.namespaced ? lifecycleAdmission : undefined,
          maxBodyBytes: limits.maxBodyBytes,
          minRequestTimeoutSeconds: limits.minRequestTimeoutSeconds,
          watchBookmarkIntervalMs: options.watchBookmarkIntervalMs,
          trackWatch: (stop) => lifecycle.trackWatch(stop),
          encodings,
        }),
      );
    }
    served.clear();
    for (const [key, scope] of scopes) {
      served.add(key);
      for (const sub of scope.subresources?.keys() ?? []) served.add(`${key}/${sub}`);
    }
    aliases.clear();
    for (const def of resources) {
      if (def.group === def.storageGroup || !def.authorizedAsOwnGroup) continue;
      const byResource = aliases.get(def.group) ?? new Map<string, string>();
      byResource.set(def.resource, def.storageGroup);
      aliases.set(def.group, byResource);
    }
    discovery.reset(resources);
  };
  const dynamic = options.dynamicResources;
  let stopDynamic = () => {};
  if (dynamic) {
    const own = new Set(resources.map((def) => `${def.group}/${def.version}/${def.resource}`));
    const staticResources = [...resources];
    const refresh = () => {
      const added = servedResources(dynamic.all().map((def) => (tracing ? traceAdmission(tracing, def) : def))).filter(
        (def) => !own.has(`${def.group}/${def.version}/${def.resource}`),
      );
      resources.splice(0, resources.length, ...staticResources, ...added);
      build();
    };
    stopDynamic = dynamic.onChange(refresh);
    refresh();
  } else build();

  return {
    authenticator,
    ownGroupOf,
    authorizer,
    resources,
    storage,
    limits,
    logger: options.logger ?? silentLogger,
    versionInfo: defaultVersionInfo(options.version),
    metrics,
    tracing,
    impersonation: options.impersonation !== false,
    audit: options.audit,
    discovery,
    dynamic,
    stopDynamic: () => stopDynamic(),
    scopes,
    servedResources: served,
    requestInfo: requestInfoFor,
    readyzChecks: [
      { name: 'ping', check: async () => undefined },
      { name: 'log', check: async () => undefined },
      {
        name: 'storage',
        check: async () => {
          if (!(await storage.ready())) throw new HealthCheckError('storage is not ready');
        },
      },
      ...(options.readyzChecks ?? []),
      {
        name: 'shutdown',
        check: async () => {
          if (lifecycle.shuttingDown) throw new HealthCheckError('server is shutting down');
        },
      },
    ],
    livezChecks: [{ name: 'ping', check: async () => undefined }, { name: 'log', check: async () => undefined }, ...(options.livezChecks ?? [])],
    tls: options.tls,
    http2: options.http2 !== false,
    shutdownDelayMs: options.shutdownDelayMs ?? 0,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 30_000,
    lifecycle,
  };
}
