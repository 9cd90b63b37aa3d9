import { hrtime } from 'node:process';
import type { Filter, RequestContext } from '../context.js';
import { recordRequest, type ServerMetrics } from '../metrics.js';
import { resourceKeyOf } from '../request-info.js';
import type { ServerLifecycle } from '../serving.js';
import { completeRequestAudit, panicRequestAudit } from './audit.js';

// Constants, not `verb.toUpperCase()`: a string made per request would be hashed by the series
// lookup. A switch over the request info's literals, not a Map: a GET's verb missed the Map's
// lookup on every request (`FindOrderedHashMapEntry` under `closed`, 0.07-0.09 µs with the
// metrics series' lookups, perf-native.mjs --callers, load 3; docs/performance.md "apiserver",
// sixth round).
function metricVerb(ctx: RequestContext): string {
  if (!ctx.info.isResourceRequest) return ctx.method;
  switch (ctx.info.verb) {
    case 'list':
      return 'LIST';
    case 'watch':
      return 'WATCH';
    case 'deletecollection':
      return 'DELETECOLLECTION';
    default:
      return ctx.method === 'HEAD' ? 'GET' : ctx.method;
  }
}

/**
 * The request's life from the server's side (kube's WithWaitGroup, the request metrics and the
 * context cancelled when the client goes away): counted in flight for graceful shutdown until
 * its response is flushed or its connection gone, not merely until the handler returns; its work
 * cancelled (`ctx.abort`) when the client closes the connection or resets the stream; then
 * apiserver_request_total and apiserver_request_duration_seconds, labelled from the request info.
 * Being the filter that sees every request settle, it also sends the request's audit event at
 * ResponseComplete (filters/audit.ts) before the request counts as handled.
 */
export function withRequestAccounting(lifecycle: ServerLifecycle, metrics: ServerMetrics, servedResources: ReadonlySet<string>): Filter {
  const finish = (ctx: RequestContext) => {
    lifecycle.requestFinished();
    const { info } = ctx;
    // Only served resources get their own series: paths that 404 must not grow the label sets.
    let resourceKey = '';
    let subresource = '';
    if (info.isResourceRequest) {
      const key = resourceKeyOf(info);
      if (servedResources.has(key)) {
        resourceKey = key;
        if (info.subresource && servedResources.has(`${key}/${info.subresource}`)) subresource = info.subresource;
      }
    }
    const scope = info.isResourceRequest ? (info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster') : '';
    recordRequest(metrics, resourceKey, info, metricVerb(ctx), scope, subresource, ctx.res.statusCode, Number(hrtime.bigint() - ctx.startTime) / 1e9);
  };
  return (next) => (ctx) => {
    lifecycle.requestStarted();
    const accounted = new AccountedRequest(ctx, finish);
    // One listener for both jobs: cancel the work of a client that went away, and finish. (A
    // response closes once; `on` spares the wrapper and removal of `once` on every request.)
    ctx.res.on('close', accounted.closed.bind(accounted));
    return next(ctx).then(accounted.handled.bind(accounted), accounted.failed.bind(accounted));
  };
}

/**
 * A request between its start and its metrics: finished once both its handler has settled and its
 * response has closed, in either order, or once its response has closed after its deadline
 * passed (the 504 is out; Kubernetes' WithWaitGroup and metrics end there too, while the handler
 * may still run). Either event also stops the request's deadline (filters/timeout.ts), which
 * spares the timeout filter a promise and reaction of its own. Its methods go to the response and
 * the handler's promise bound, not as closures made per request: V8 runs `CompileLazy` at the
 * first call of each new closure (with the timeout filter's, 0.45 µs of a GET's perf samples;
 * filters/timeout.ts).
 */
class AccountedRequest {
  private isHandled = false;
  private isClosed = false;
  private isFinished = false;

  constructor(
    private readonly ctx: RequestContext,
    private readonly finish: (ctx: RequestContext) => void,
  ) {}

  closed(): void {
    const { ctx } = this;
    if (!ctx.res.writableEnded) ctx.abort(new Error('client closed the connection'));
    this.isClosed = true;
    const timer = ctx.timer;
    if (timer) {
      timer.stop();
      if (timer.timedOut) this.end();
    }
    if (this.isHandled) this.end();
  }

  /** The handler is done: the audit event's last stage first (waited for when its backend must wait). */
  handled(): void | Promise<void> {
    const ra = this.ctx.audit;
    if (ra !== undefined) {
      let done: boolean | Promise<boolean>;
      try {
        done = completeRequestAudit(this.ctx, ra);
      } catch (err) {
        this.settled();
        throw err;
      }
      if (typeof done !== 'boolean') {
        return done.then(
          () => this.settled(),
          (err: unknown) => {
            this.settled();
            throw err;
          },
        );
      }
    }
    this.settled();
  }

  /** What panic recovery could not turn into an answer: the audit event records the panic. */
  failed(err: unknown): never {
    const ra = this.ctx.audit;
    if (ra !== undefined) void panicRequestAudit(ra, err);
    this.settled();
    throw err;
  }

  private settled(): void {
    this.isHandled = true;
    this.ctx.timer?.stop();
    if (this.isClosed) this.end();
  }

  private end(): void {
    if (this.isFinished) return;
    this.isFinished = true;
    this.finish(this.ctx);
  }
}
