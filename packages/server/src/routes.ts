import type { Handler, RequestContext } from './context.js';
import type { CompletedConfig } from './config.js';
import { serveDiscovery } from './discovery.js';
import { serveHealth } from './health.js';
import { negotiateOutput } from './negotiation.js';
import { openApiHandler } from './openapi/serve.js';
import { newPathNotFound, writeBody, writeError, writeObject } from './response.js';
import { dispatchResource } from './rest/dispatch.js';

/** A path outside the resource API: `segments` is the decoded path split on `/`. */
interface NonResourceRoute {
  name: string;
  matches(segments: string[], ctx: RequestContext): boolean;
  serve(ctx: RequestContext, segments: string[]): Promise<void> | void;
}

const healthKinds = new Set(['healthz', 'livez', 'readyz']);

/** The paths outside the resource API, tried in order (GET and HEAD only; anything else is 404). */
function nonResourceRoutes(config: CompletedConfig): NonResourceRoute[] {
  const { metrics, versionInfo, discovery, lifecycle } = config;
  // Built again on the first request after the served resources changed (a CRD established).
  let openApi = openApiHandler(config.resources, versionInfo);
  let openApiVersion = config.dynamic?.version ?? 0;
  const currentOpenApi = () => {
    if (config.dynamic && config.dynamic.version !== openApiVersion) {
      openApiVersion = config.dynamic.version;
      openApi = openApiHandler(config.resources, versionInfo);
    }
    return openApi;
  };
  return [
    {
      name: 'health',
      matches: (s) => healthKinds.has(s[0] ?? ''),
      serve: (ctx, [kind, check, ...more]) => {
        if (more.length) throw newPathNotFound();
        return serveHealth(ctx, kind!, check ?? '', kind === 'readyz' ? config.readyzChecks : config.livezChecks);
      },
    },
    {
      name: 'version',
      matches: (s) => s.length === 1 && s[0] === 'version',
      serve: (ctx) => writeObject(ctx, 200, versionInfo, negotiateOutput(ctx.req.headers.accept, { allowedAs: [] })),
    },
    {
      name: 'metrics',
      matches: (s) => s.length === 1 && s[0] === 'metrics',
      serve: async (ctx) => writeBody(ctx, 200, metrics.registry.contentType, Buffer.from(await metrics.registry.metrics())),
    },
    { name: 'openapi', matches: (s) => s[0] === 'openapi', serve: (ctx, s) => currentOpenApi()(ctx, s.slice(1)) },
    {
      name: 'discovery',
      matches: (_, ctx) => ctx.info.apiPrefix !== '',
      serve: (ctx) => {
        const address = lifecycle.address ? `${lifecycle.address.host}:${lifecycle.address.port}` : '';
        if (!serveDiscovery(discovery, ctx, address)) throw newPathNotFound();
      },
    },
  ];
}

/**
 * The handler at the bottom of the chain (kube's director): resource requests go to their
 * resource's REST handler; other paths to the table above. What a route throws
 * becomes a Status (the REST handlers answer their own errors).
 */
export function buildRoutes(config: CompletedConfig): Handler {
  const { scopes, logger } = config;
  const table = nonResourceRoutes(config);

  const routeNonResource: Handler = async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw newPathNotFound();
    const segments = ctx.info.path.split('/').filter(Boolean);
    for (const route of table) if (route.matches(segments, ctx)) return route.serve(ctx, segments);
    throw newPathNotFound();
  };

  // Resource requests go straight to their handler's promise (no async frame in between; a
  // synchronous throw reaches the caller's try/await like a rejection).
  const route: Handler = (ctx) => {
    if (!ctx.info.isResourceRequest) return routeNonResource(ctx);
    return dispatchResource(scopes, ctx);
  };

  const failed = (ctx: RequestContext, err: unknown): void => {
    if (!ctx.res.headersSent) writeError(ctx, err);
    else ctx.res.destroy?.();
    if (!(err instanceof Error && 'status' in err)) {
      logger.error('request failed', { URI: ctx.url.pathname, auditID: ctx.auditId, err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  };
  // The route's promise with a rejection handler, not an async function with try/await around
  // it: 35-38 ns a request over the route's own instead of 79-84 (promise-hops.mjs, load 12;
  // docs/performance.md, "apiserver").
  return (ctx) => {
    let pending: Promise<void>;
    try {
      pending = route(ctx);
    } catch (err) {
      // As an async function would: what the handler threw, and anything this throws, settle
      // the returned promise; nothing is thrown to the caller.
      try {
        failed(ctx, err);
      } catch (failure) {
        return Promise.reject(failure as Error);
      }
      return Promise.resolve();
    }
    return pending.then(undefined, (err: unknown) => failed(ctx, err));
  };
}
