import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Authenticator, Authorizer } from '@plat/auth';
import type { Storage } from '@plat/storage';
import type { Tracing } from '@plat/telemetry';
import { ServerRequestContext, splitRequestTarget, type Filter, type Handler, type IncomingRequest, type OutgoingResponse, type RequestContext } from './context.js';
import { Discovery, serveDiscovery } from './discovery.js';
import { withAuthentication } from './filters/authentication.js';
import { withAuthorization } from './filters/authorization.js';
import { withImpersonation } from './filters/impersonation.js';
import { withMaxInFlight } from './filters/max-in-flight.js';
import { withPanicRecovery } from './filters/panic-recovery.js';
import { withRequestLog } from './filters/request-log.js';
import { withRequestTimeout } from './filters/timeout.js';
import { serveHealth, type HealthCheck } from './health.js';
import { instrumentStorage } from './instrumented-storage.js';
import { silentLogger, type ServerLogger } from './logger.js';
import { createServerMetrics, recordRequest, registerStorageMemoryMetrics, type ServerMetrics } from './metrics.js';
import { negotiateOutput } from './negotiation.js';
import { buildOpenApiV2, buildOpenApiV3, documentHash } from './openapi/documents.js';
import { allDefinitions } from './openapi/operations.js';
import { requestInfoFor } from './request-info.js';
import type { ResourceDefinition } from './resource.js';
import { encodeBody, newPathNotFound, wantsPretty, writeBody, writeError, writeObject } from './response.js';
import { dispatchResource } from './rest/dispatch.js';
import { namespaceLifecycle, servesNamespaces } from './rest/namespace-lifecycle.js';
import { canonicalReviewPath, isReviewRequest, reviewResources, serveReview } from './reviews/reviews.js';
import { newResourceScope, type ResourceScope } from './rest/scope.js';
import { SchemaSet } from './schema-walk.js';
import { createSecureServer, defaultConnectionLimits, type ConnectionLimits } from './secure-serving.js';
import { traceAdmission, traceAuthenticator, traceAuthorization, traceStorage, withTracing } from './tracing.js';
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
}

export const defaultLimits: ServerLimits = {
  maxRequestsInFlight: 400,
  maxMutatingRequestsInFlight: 200,
  requestTimeoutMs: 60_000,
  maxBodyBytes: 3 * 1024 * 1024,
  minRequestTimeoutSeconds: 1800,
  ...defaultConnectionLimits,
};

export interface ApiServerOptions {
  storage: Storage;
  authenticator: Authenticator;
  authorizer: Authorizer;
  resources: ResourceDefinition[];
  tls: { cert: string | Buffer; key: string | Buffer; clientCA?: string | Buffer };
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
   * Serve the review APIs (selfsubjectreviews, selfsubjectaccessreviews, subjectaccessreviews;
   * see src/reviews/). Default true.
   */
  reviews?: boolean;
}

export interface ServerAddress {
  host: string;
  port: number;
  url: string;
}

export interface ApiServer {
  listen(opts?: { host?: string; port?: number }): Promise<ServerAddress>;
  address(): ServerAddress | null;
  /** Graceful: /readyz fails, the listener closes, watches end, in-flight requests drain. */
  close(): Promise<void>;
  readonly metrics: Registry;
}

function chain(handler: Handler, filters: Filter[]): Handler {
  // filters are listed outermost first
  return filters.reduceRight((h, f) => f(h), handler);
}

function metricVerb(ctx: RequestContext): string {
  const v = ctx.info.verb;
  if (!ctx.info.isResourceRequest) return ctx.method;
  if (v === 'list' || v === 'watch' || v === 'deletecollection') return v.toUpperCase();
  return ctx.method === 'HEAD' ? 'GET' : ctx.method;
}

/** Builds the API server; nothing listens until listen(). */
export function createApiServer(serverOptions: ApiServerOptions): ApiServer {
  const tracing = serverOptions.tracing?.enabled ? serverOptions.tracing : undefined;
  const options: ApiServerOptions = tracing
    ? {
        ...serverOptions,
        authenticator: traceAuthenticator(tracing, serverOptions.authenticator),
        authorizer: traceAuthorization(tracing, serverOptions.authorizer),
        resources: serverOptions.resources.map((def) => traceAdmission(tracing, def)),
      }
    : serverOptions;
  const limits: ServerLimits = { ...defaultLimits, ...options.limits };
  const logger = options.logger ?? silentLogger;
  const versionInfo = defaultVersionInfo(options.version);
  const metrics: ServerMetrics = createServerMetrics(options.metricsRegistry);
  const { storage } = options;
  if (storage.memoryStats) registerStorageMemoryMetrics(metrics.registry, () => storage.memoryStats!());
  const schemas = new SchemaSet(allDefinitions(options.resources));
  const reviews = options.reviews !== false;
  const discovery = new Discovery(options.resources, reviews ? reviewResources : []);
  const watches = new Set<() => void>();
  const scopes = new Map<string, ResourceScope>();
  const lifecycle = servesNamespaces(options.resources) ? namespaceLifecycle(options.storage) : undefined;
  for (const def of options.resources) {
    const instrumented = instrumentStorage(options.storage, metrics, `${def.resource}.${def.group}`);
    const storage = tracing ? traceStorage(tracing, instrumented, `${def.resource}.${def.group}`) : instrumented;
    scopes.set(
      `${def.group}/${def.version}/${def.resource}`,
      newResourceScope(def, {
        storage,
        authorizer: options.authorizer,
        schemas,
        metrics,
        namespaceLifecycle: def.namespaced ? lifecycle : undefined,
        maxBodyBytes: limits.maxBodyBytes,
        minRequestTimeoutSeconds: limits.minRequestTimeoutSeconds,
        watchBookmarkIntervalMs: options.watchBookmarkIntervalMs,
        trackWatch(stop) {
          watches.add(stop);
          return () => watches.delete(stop);
        },
      }),
    );
  }

  // group/version/resource of everything served, for metric labels.
  const servedResources = new Set([...scopes.keys(), ...(reviews ? reviewResources.map((r) => `${r.group}/${r.version}/${r.resource}`) : [])]);

  let shuttingDown = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const readyz: HealthCheck[] = [
    { name: 'ping', check: async () => undefined },
    { name: 'log', check: async () => undefined },
    {
      name: 'storage',
      check: async () => {
        if (!(await options.storage.ready())) throw new Error('storage is not ready');
      },
    },
    ...(options.readyzChecks ?? []),
    {
      name: 'shutdown',
      check: async () => {
        if (shuttingDown) throw new Error('server is shutting down');
      },
    },
  ];
  const livez: HealthCheck[] = [
    { name: 'ping', check: async () => undefined },
    { name: 'log', check: async () => undefined },
    ...(options.livezChecks ?? []),
  ];

  // OpenAPI documents are built once; their bytes and hashes are cached.
  const openApiV2 = JSON.stringify(buildOpenApiV2(options.resources, versionInfo));
  const openApiV3 = new Map<string, { body: string; hash: string }>();
  for (const { group, version } of discovery.groupVersions()) {
    const body = JSON.stringify(buildOpenApiV3(options.resources, group, version, versionInfo));
    openApiV3.set(group ? `apis/${group}/${version}` : `api/${version}`, { body, hash: documentHash(body) });
  }

  let serverAddress: ServerAddress | null = null;

  // Resource requests go straight to their handler's promise (no async frame in between; a
  // synchronous throw reaches the caller's try/await like a rejection).
  const route: Handler = (ctx) => {
    if (!ctx.info.isResourceRequest) return routeNonResource(ctx);
    if (reviews && isReviewRequest(ctx)) return serveReview(ctx, options.authorizer, limits.maxBodyBytes);
    return dispatchResource(scopes, ctx);
  };

  const routeNonResource: Handler = async (ctx) => {
    const { info } = ctx;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw newPathNotFound();
    const segments = info.path.split('/').filter(Boolean);
    const first = segments[0] ?? '';
    if (first === 'healthz' || first === 'livez' || first === 'readyz') {
      if (segments.length > 2) throw newPathNotFound();
      return serveHealth(ctx, first, segments[1] ?? '', first === 'readyz' ? readyz : livez);
    }
    if (first === 'version' && segments.length === 1) {
      writeObject(ctx, 200, versionInfo, negotiateOutput(ctx.req.headers.accept, { allowedAs: [] }));
      return;
    }
    if (first === 'metrics' && segments.length === 1) {
      const text = await metrics.registry.metrics();
      writeBody(ctx, 200, metrics.registry.contentType, Buffer.from(text));
      return;
    }
    if (first === 'openapi') return serveOpenApi(ctx, segments.slice(1));
    if (info.apiPrefix && serveDiscovery(discovery, ctx, serverAddress ? `${serverAddress.host}:${serverAddress.port}` : '')) return;
    throw newPathNotFound();
  };

  const serveOpenApi = (ctx: RequestContext, rest: string[]): void => {
    if (rest[0] === 'v2' && rest.length === 1) {
      const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
      if (choice.format === 'json') {
        ctx.res.setHeader('ETag', `"${documentHash(openApiV2).slice(0, 32)}"`);
        writeBody(ctx, 200, 'application/json', Buffer.from(openApiV2));
      } else writeObject(ctx, 200, JSON.parse(openApiV2), choice);
      return;
    }
    if (rest[0] === 'v3' && rest.length === 1) {
      const paths: Record<string, unknown> = {};
      for (const [key, doc] of openApiV3) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      writeObject(ctx, 200, { paths }, negotiateOutput(ctx.req.headers.accept, { allowedAs: [] }));
      return;
    }
    if (rest[0] === 'v3') {
      const doc = openApiV3.get(rest.slice(1).join('/'));
      if (!doc) throw newPathNotFound();
      negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
      ctx.res.setHeader('ETag', `"${doc.hash}"`);
      if (ctx.query.get('hash') === doc.hash) {
        // The hash names this exact content: clients may cache it for good (as Kubernetes allows).
        ctx.res.setHeader('Expires', new Date(Date.now() + 365 * 86400_000).toUTCString());
        ctx.res.setHeader('Cache-Control', 'public, immutable');
      }
      const body = wantsPretty(ctx) ? Buffer.from(encodeBody(JSON.parse(doc.body), 'json', true)) : Buffer.from(doc.body);
      writeBody(ctx, 200, 'application/json', body);
      return;
    }
    throw newPathNotFound();
  };

  // The REST handlers answer errors as Status objects themselves.
  const handler: Handler = async (ctx) => {
    try {
      await route(ctx);
    } catch (err) {
      if (!ctx.res.headersSent) writeError(ctx, err);
      else ctx.res.destroy?.();
      if (!(err instanceof Error && 'status' in err)) {
        logger.error('request failed', { URI: ctx.url.pathname, auditID: ctx.auditId, err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      }
    }
  };

  const filters: Filter[] = [
    ...(tracing ? [withTracing(tracing)] : []),
    withPanicRecovery(logger),
    // Logged early so that 401s, 429s and timeouts get their line too.
    withRequestLog(logger),
    withRequestTimeout(limits.requestTimeoutMs),
    withAuthentication(options.authenticator, logger),
    ...(options.impersonation === false ? [] : [withImpersonation(options.authorizer)]),
    // After the user is known, as in kube-apiserver: system:masters is exempt from the budgets.
    withMaxInFlight(limits, metrics),
    withAuthorization(options.authorizer),
  ];
  const fullChain = chain(handler, filters);

  const infoFor = (method: string, path: string, query: URLSearchParams) => requestInfoFor(method, path, query, reviews ? canonicalReviewPath : undefined);
  // A target Go's HTTP server would not parse (kube-apiserver never sees it): 400, no filters.
  const rejectMalformed = async (ctx: ServerRequestContext, err: Error): Promise<void> => writeError(ctx, err);

  const onRequest = (req: IncomingRequest, res: OutgoingResponse): void => {
    const method = (req.method ?? 'GET').toUpperCase();
    const ctx = new ServerRequestContext(req, res, method, splitRequestTarget(req.url ?? '/'), infoFor, randomUUID(), process.hrtime.bigint());
    const { info } = ctx;
    if (shuttingDown && req.httpVersion.startsWith('1')) res.setHeader('Connection', 'close');
    inFlight++;
    const longRunning = ctx.longRunning && info.isResourceRequest;
    const lrLabels = longRunning
      ? { verb: 'WATCH', group: info.apiGroup, version: info.apiVersion, resource: info.resource, scope: info.namespace ? 'namespace' : 'cluster', component: 'apiserver' }
      : undefined;
    const lrGauge = lrLabels ? metrics.longRunning.labels(lrLabels) : undefined;
    lrGauge?.inc();
    const finish = () => {
      inFlight--;
      lrGauge?.dec();
      // Only served resources get their own series: paths that 404 must not grow the label sets.
      const served = info.isResourceRequest && servedResources.has(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
      const labels = {
        verb: metricVerb(ctx),
        group: served ? info.apiGroup : '',
        version: served ? info.apiVersion : '',
        resource: served ? info.resource : '',
        subresource: served ? info.subresource : '',
        scope: info.isResourceRequest ? (info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster') : '',
        component: 'apiserver',
      };
      recordRequest(metrics, labels, res.statusCode, Number(process.hrtime.bigint() - ctx.startTime) / 1e9);
      if (inFlight === 0 && drained) drained();
    };
    // A request is done when its response is flushed (or the connection is gone), which is what
    // graceful shutdown must wait for, not merely when the handler returns.
    let handled = false;
    let closed = false;
    const settle = () => {
      if (handled && closed) finish();
    };
    // One listener for both jobs: cancel the work of a client that went away, and finish. (A
    // response closes once; `on` spares the wrapper and removal of `once` on every request.)
    res.on('close', () => {
      if (!res.writableEnded) ctx.abort(new Error('client closed the connection'));
      closed = true;
      settle();
    });
    const done = () => {
      handled = true;
      settle();
    };
    (ctx.malformed ? rejectMalformed(ctx, ctx.malformed) : fullChain(ctx)).then(done, (err: unknown) => {
      try {
        logger.error('unhandled request error', { err: String(err) });
        if (!res.headersSent) writeError(ctx, err);
      } finally {
        done();
      }
    });
  };

  const { server, sockets, sessions, stop: stopServing } = createSecureServer(
    {
      tls: options.tls,
      http2: options.http2 !== false,
      limits: {
        ...limits,
        // A body still arriving after --request-timeout belongs to a request that got its 504.
        requestReceiveTimeoutMs: limits.requestTimeoutMs > 0 ? limits.requestHeaderTimeoutMs + limits.requestTimeoutMs : 0,
      },
    },
    onRequest,
  );

  let closing: Promise<void> | undefined;

  return {
    metrics: metrics.registry,
    async listen(opts = {}) {
      const host = opts.host ?? '127.0.0.1';
      server.listen(opts.port ?? 6443, host);
      await once(server, 'listening');
      const addr = server.address() as AddressInfo;
      const urlHost = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
      serverAddress = { host: addr.address, port: addr.port, url: `https://${urlHost}:${addr.port}` };
      return serverAddress;
    },
    address() {
      return serverAddress;
    },
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        if (options.shutdownDelayMs) await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const stop of [...watches]) stop();
        if (inFlight > 0) {
          const timeout = options.shutdownTimeoutMs ?? 30_000;
          await Promise.race([
            new Promise<void>((resolve) => (drained = resolve)),
            new Promise<void>((resolve) => setTimeout(resolve, timeout).unref()),
          ]);
        }
        // GOAWAY only after the streams ended: clients fail streams still open when it arrives.
        for (const s of sessions) s.close();
        if (sessions.size > 0) {
          await Promise.race([
            Promise.all([...sessions].map((s) => (s.destroyed ? undefined : once(s, 'close')))),
            new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
          ]);
        }
        for (const s of sockets) s.destroy();
        stopServing();
        await closed;
      })();
      return closing;
    },
  };
}
