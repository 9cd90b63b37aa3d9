/**
 * Request tracing: one span per request with children for authentication, authorization (one
 * per authorizer, covering webhook calls), admission and storage calls.
 *
 * The current span's context is the request's `traceContext` (context.ts), updated while a child
 * span is open. Calls below the filters get their request as a parameter: the scope of an
 * authenticator or authorizer call, AdmissionRequest.scope, a storage call's `request` option.
 * No AsyncLocalStorage: on Node 20
 * it turns on promise hooks for the whole process, which alone costs more than the 5% that
 * tracing at rate 0 may cost. With tracing off the filter is not installed, the wrappers are not
 * applied, and nothing of this runs (the OpenTelemetry API is a few interfaces; the SDK is only
 * loaded by @plat/telemetry's createTracing()).
 */
import { SpanKind, SpanStatusCode, trace, type Attributes as SpanAttributes, type Context, type Span } from '@opentelemetry/api';
import { forwardRulesFor, type Attributes, type AuthenticationRequest, type Authenticator, type AuthorizationResult, type Authorizer, type RequestScope } from '@plat/auth';
import type { OperationOptions, Storage } from '@plat/storage';
import type { Tracing } from '@plat/telemetry';
import type { Filter, Handler, RequestContext } from './context.js';
import type { AdmissionRequest, ResourceDefinition } from './resource.js';
import { requestHeader } from './request-header.js';

/**
 * How many requests a tracer has in flight with a trace context (sampled or not), shared by its
 * filter and its wrappers: while there are none, the wrappers do not even look at their call's
 * options (a foreign caller's lazy signal stays unmade). Per tracer, looked up when a filter or
 * wrapper is made: two servers with their own tracers never count each other's requests.
 */
const tracedRequestsByTracer = new WeakMap<Tracing, { count: number }>();

function tracedRequestsOf(tracing: Tracing): { count: number } {
  let traced = tracedRequestsByTracer.get(tracing);
  if (!traced) tracedRequestsByTracer.set(tracing, (traced = { count: 0 }));
  return traced;
}

/** The request a call below the filters is made for, as far as tracing reads and writes it. */
type TraceScope = { traceContext?: unknown } | undefined;

/**
 * A wrapper's `authenticateKnown`/`authorizeKnown`: the wrapped answer for a request that is not
 * traced; a traced request takes the awaited call, for its span. Absent when the wrapped one is.
 */
function knownWhenUntraced<A, R>(traced: { count: number }, known: ((arg: A, scope?: RequestScope) => R | undefined) | undefined) {
  return known ? (arg: A, scope?: RequestScope) => (traced.count === 0 || scope?.traceContext === undefined ? known(arg, scope) : undefined) : undefined;
}

/** The trace context of the request a call is made for (undefined outside a traced request). */
export function currentTraceContext(scope: RequestScope | undefined): Context | undefined {
  return scope?.traceContext as Context | undefined;
}

/**
 * Runs `traced` inside a child span of the current span of the request `scope`.
 * Outside a traced request, or under a span that is not recorded (sampled out), `plain` runs
 * instead, with no span, closure or promise of ours in between (rate 0 must cost nothing).
 */
export function inChildSpan<T>(
  tracing: Tracing,
  scope: TraceScope,
  name: string,
  attributes: () => SpanAttributes,
  plain: () => Promise<T>,
  traced: (span: Span) => Promise<T> = plain,
): Promise<T> {
  const parent = scope?.traceContext as Context | undefined;
  if (!parent || !trace.getSpan(parent)?.isRecording()) return plain();
  return inSpan(tracing, scope!, parent, name, attributes, traced);
}

async function inSpan<T>(
  tracing: Tracing,
  req: NonNullable<TraceScope>,
  parent: Context,
  name: string,
  attributes: () => SpanAttributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracing.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: attributes() }, parent);
  const current = trace.setSpan(parent, span);
  req.traceContext = current;
  try {
    return await fn(span);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    // Calls of one request run one after another; restore the parent unless another took over.
    if (req.traceContext === current) req.traceContext = parent;
    span.end();
  }
}

/**
 * The route of a request as a template, so span names stay few: resource requests name their
 * resource and `{name}`; other paths keep their first segment (discovery keeps group/version).
 */
export function routeTemplate(ctx: RequestContext): string {
  const { info } = ctx;
  if (info.isResourceRequest) {
    const prefix = info.apiGroup ? `/${info.apiPrefix}/${info.apiGroup}/${info.apiVersion}` : `/${info.apiPrefix}/${info.apiVersion}`;
    const watch = ctx.path.includes(`/watch/`) ? '/watch' : '';
    // A Namespace's own path carries its name as the namespace: `/api/v1/namespaces/{name}`.
    const ns = info.namespace && !(info.apiGroup === '' && info.resource === 'namespaces') ? '/namespaces/{namespace}' : '';
    const name = info.name ? '/{name}' : '';
    const sub = info.subresource ? `/${info.subresource}` : '';
    return `${prefix}${watch}${ns}/${info.resource}${name}${sub}`;
  }
  const segments = info.path.split('/').filter(Boolean);
  const first = segments[0] ?? '';
  switch (first) {
    case '':
      return '/';
    case 'api':
    case 'apis':
      // /apis, /apis/<group>, /apis/<group>/<version>: few, and useful to tell apart.
      return segments.length <= 3 ? `/${segments.join('/')}` : `/${first}/{path}`;
    case 'openapi':
      return segments[1] === 'v2' || segments.length === 2 ? `/${segments.slice(0, 2).join('/')}` : '/openapi/v3/{groupVersion}';
    case 'healthz':
    case 'livez':
    case 'readyz':
      return segments.length > 1 ? `/${first}/{check}` : `/${first}`;
    case 'version':
    case 'metrics':
      return `/${first}`;
    default:
      return '/{path}';
  }
}

const noAttributes = (): SpanAttributes => ({});

/**
 * The outermost filter: extracts the incoming W3C trace context (`traceparent`, `tracestate`),
 * starts the request span under it and ends it with the status code when the chain is done.
 */
export function withTracing(tracing: Tracing): Filter {
  const traced = tracedRequestsOf(tracing);
  // With the rate unset or 0, a request that carries no trace context can never be sampled
  // (ParentBased roots): skip the SDK for it entirely, so rate 0 costs a header lookup, in the
  // raw list: `req.headers` is not built for it (request-header.ts).
  return (next) => (ctx) =>
    !tracing.samplesRoots && requestHeader(ctx.req, 'traceparent') === undefined ? next(ctx) : tracedRequest(tracing, traced, next, ctx);
}

async function tracedRequest(tracing: Tracing, traced: { count: number }, next: Handler, ctx: RequestContext): Promise<void> {
  // The W3C propagator reads these two headers only.
  const parent = tracing.extract({ traceparent: requestHeader(ctx.req, 'traceparent'), tracestate: requestHeader(ctx.req, 'tracestate') });
  // The samplers in use (parent-based, trace-id ratio) read neither name nor attributes: both
  // are only built for spans that are recorded.
  const span = tracing.tracer.startSpan(ctx.method, { kind: SpanKind.SERVER }, parent);
  const recording = span.isRecording();
  if (recording) {
    const route = routeTemplate(ctx);
    span.updateName(`${ctx.method} ${route}`);
    // Few attributes: every one is encoded and exported for every request at full sampling.
    // The route template carries group and version; the audit id links the span to logs.
    span.setAttributes({
      'http.request.method': ctx.method,
      'http.route': route,
      'user_agent.original': requestHeader(ctx.req, 'user-agent') ?? '',
      'apiserver.verb': ctx.info.verb,
      'apiserver.resource': ctx.info.resource,
      'apiserver.audit_id': ctx.auditId,
    });
  }
  // Unsampled requests keep their context too: webhooks still get the (unsampled) traceparent.
  ctx.traceContext = trace.setSpan(parent, span);
  traced.count++;
  try {
    await next(ctx);
  } catch (err) {
    if (recording) span.recordException(err as Error);
    throw err;
  } finally {
    traced.count--;
    ctx.traceContext = undefined;
    if (recording) {
      const status = ctx.res.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** The authenticator seen through an `authentication` span (its outcome as an attribute). */
export function traceAuthenticator(tracing: Tracing, authenticator: Authenticator): Authenticator {
  const traced = tracedRequestsOf(tracing);
  return {
    authenticate: (req: AuthenticationRequest, scope?: RequestScope) =>
      // Not in a traced request: straight through, without the closures below.
      traced.count === 0 || scope?.traceContext === undefined
        ? authenticator.authenticate(req, scope)
        : inChildSpan(
            tracing,
            scope,
            'authentication',
            noAttributes,
            () => authenticator.authenticate(req, scope),
            async (span) => {
              const result = await authenticator.authenticate(req, scope);
              span.setAttribute('authentication.authenticated', result !== null && result !== undefined);
              return result;
            },
          ),
    authenticateKnown: knownWhenUntraced(traced, authenticator.authenticateKnown?.bind(authenticator)),
  };
}

function recordDecision(span: Span, result: AuthorizationResult): void {
  span.setAttribute('authorization.decision', result.decision);
  // Reasons of denials explain a 403; those of allowed requests are rarely read.
  if (result.reason && result.decision !== 'Allow') span.setAttribute('authorization.reason', result.reason.slice(0, 512));
}

function authorizationAttributes(attrs: Attributes): SpanAttributes {
  return attrs.resourceRequest
    ? { 'authorization.verb': attrs.verb, 'authorization.resource': attrs.resource }
    : { 'authorization.verb': attrs.verb, 'authorization.path': attrs.path };
}

/**
 * The server's authorizer seen through an `authorization` span. Each call the server makes (the
 * request itself, impersonation checks, `attest` in admission) gets its own span.
 */
export function traceAuthorization(tracing: Tracing, authorizer: Authorizer): Authorizer {
  const traced = tracedRequestsOf(tracing);
  return {
    rulesFor: forwardRulesFor(authorizer),
    authorize: (attrs, scope) =>
      traced.count === 0 || scope?.traceContext === undefined
        ? authorizer.authorize(attrs, scope)
        : inChildSpan(
            tracing,
            scope,
            'authorization',
            () => authorizationAttributes(attrs),
            () => authorizer.authorize(attrs, scope),
            async (span) => {
              const result = await authorizer.authorize(attrs, scope);
              recordDecision(span, result);
              return result;
            },
          ),
    authorizeKnown: knownWhenUntraced(traced, authorizer.authorizeKnown?.bind(authorizer)),
  };
}

/**
 * One authorizer of the app's chain seen through an `authorizer <type>/<name>` span, for example
 * around a WebhookAuthorizer: the webhook call happens inside it, and the traceparent the webhook
 * receives (see {@link traceHeadersInjector}) names this span as its parent.
 */
export function traceAuthorizer(tracing: Tracing | undefined, type: string, name: string, authorizer: Authorizer): Authorizer {
  if (!tracing?.enabled) return authorizer;
  const traced = tracedRequestsOf(tracing);
  const attributes = () => ({ 'authorizer.type': type, 'authorizer.name': name });
  return {
    rulesFor: forwardRulesFor(authorizer),
    authorize: (attrs, scope) =>
      traced.count === 0 || scope?.traceContext === undefined
        ? authorizer.authorize(attrs, scope)
        : inChildSpan(
            tracing,
            scope,
            `authorizer ${type}/${name}`,
            attributes,
            () => authorizer.authorize(attrs, scope),
            async (span) => {
              const result = await authorizer.authorize(attrs, scope);
              recordDecision(span, result);
              return result;
            },
          ),
    authorizeKnown: knownWhenUntraced(traced, authorizer.authorizeKnown?.bind(authorizer)),
  };
}

/**
 * Writes `traceparent` (and `tracestate`) of the current span of the request a call is made for
 * into outgoing headers: the `injectHeaders` option of WebhookAuthorizer (wrapped by
 * {@link traceAuthorizer}, so that the current span is its `authorizer` span). A no-op with
 * tracing off or outside a traced request.
 */
export function traceHeadersInjector(tracing: Tracing | undefined): (headers: Record<string, string>, scope?: RequestScope) => void {
  if (!tracing?.enabled) return () => undefined;
  return (headers, scope) => {
    const context = currentTraceContext(scope);
    if (context) tracing.inject(context, headers);
  };
}

/** The resource with its admission step seen through an `admission` span. */
export function traceAdmission(tracing: Tracing, def: ResourceDefinition): ResourceDefinition {
  const { strategy } = def;
  const admit = strategy.admit;
  if (!admit) return def;
  const tracedRequests = tracedRequestsOf(tracing);
  const traced = Object.create(strategy) as typeof strategy;
  traced.admit = (req: AdmissionRequest) =>
    tracedRequests.count === 0
      ? admit.call(strategy, req)
      : inChildSpan(tracing, req.scope, 'admission', () => ({ 'admission.operation': req.operation, 'admission.dry_run': req.dryRun }), () =>
          admit.call(strategy, req),
        );
  return { ...def, strategy: traced };
}

/** The request of a storage call: the `request` of its options (its last object argument). */
function requestOf(args: unknown[]): TraceScope {
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i];
    if (a && typeof a === 'object' && 'request' in a) return (a as OperationOptions).request;
  }
  return undefined;
}

type TracedOperation = 'create' | 'get' | 'list' | 'guaranteedUpdate' | 'delete' | 'count' | 'currentRevision';
const tracedOperations: TracedOperation[] = ['create', 'get', 'list', 'guaranteedUpdate', 'delete', 'count', 'currentRevision'];

/**
 * The storage seen through `storage.<operation>` spans (watches are long-running streams and
 * get none). `type` is the resource (`clustertrustbundles.certificates.plat.io`).
 */
export function traceStorage(tracing: Tracing, storage: Storage, type: string): Storage {
  const tracedRequests = tracedRequestsOf(tracing);
  const wrapped: Storage = Object.create(storage) as Storage;
  for (const op of tracedOperations) {
    const original = (storage[op] as (...args: unknown[]) => Promise<unknown>).bind(storage);
    // The operation is the span name; the type names the resource.
    const attributes = () => ({ 'storage.type': type });
    (wrapped as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => {
      if (tracedRequests.count === 0) return original(...args);
      const request = requestOf(args);
      return request?.traceContext === undefined ? original(...args) : inChildSpan(tracing, request, `storage.${op}`, attributes, () => original(...args));
    };
  }
  for (const op of ['watch', 'compact', 'ready', 'close'] as const) {
    (wrapped as unknown as Record<string, unknown>)[op] = (storage[op] as (...a: unknown[]) => unknown).bind(storage);
  }
  return wrapped;
}
