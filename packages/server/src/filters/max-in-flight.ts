import { newTooManyRequests } from '@plat/api-model';
import { systemMasters } from '@plat/auth';
import type { Filter, Handler, RequestContext } from '../context.js';
import type { ServerMetrics } from '../metrics.js';
import { isMutatingVerb } from '../request-info.js';
import { writeError } from '../response.js';

export interface InFlightLimits {
  /** --max-requests-inflight (0 = no limit). */
  maxRequestsInFlight: number;
  /** --max-mutating-requests-inflight (0 = no limit). */
  maxMutatingRequestsInFlight: number;
}

/** The health endpoints: Kubernetes' `probes` flow schema puts them in the exempt priority level. */
function isHealthProbe(ctx: RequestContext): boolean {
  if (ctx.info.isResourceRequest || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  const first = ctx.info.path.split('/', 2)[1];
  return first === 'healthz' || first === 'livez' || first === 'readyz';
}

/**
 * Requests no budget applies to, as in Kubernetes: long-running ones (watches), health probes
 * (the `probes` flow schema of priority and fairness) and members of `system:masters` (the
 * `exempt` flow schema; kube's max-in-flight filter lets them through too), so that a load
 * balancer's probe and an administrator still get answers when the server is saturated.
 */
function isExempt(ctx: RequestContext): boolean {
  return ctx.longRunning || isHealthProbe(ctx) || ctx.user?.groups.includes(systemMasters) === true;
}

/**
 * Kubernetes' max-in-flight filter: read-only and mutating requests have separate budgets; over
 * budget answers 429 TooManyRequests with Retry-After: 1. It runs after authentication and
 * impersonation (it needs the user), as in kube-apiserver's handler chain.
 */
export function withMaxInFlight(limits: InFlightLimits, metrics: ServerMetrics): Filter {
  let readOnly = 0;
  let mutating = 0;
  const gauges = { readOnly: metrics.inflight.labels('readOnly'), mutating: metrics.inflight.labels('mutating') };
  // The budget goes back through functions made once here, not per request: a request of a
  // user outside system:masters made two closures (give back, give back and rethrow), and V8
  // runs `CompileLazy` at the first call of each new closure: 10-15 ns a request, 40-96 in rounds
  // with a collection (a microbenchmark of the two shapes, load 5; docs/performance.md "apiserver").
  const releaseReadOnly = (): void => {
    readOnly--;
    gauges.readOnly.set(readOnly);
  };
  const releaseMutating = (): void => {
    mutating--;
    gauges.mutating.set(mutating);
  };
  const failReadOnly = (err: unknown): never => {
    releaseReadOnly();
    throw err;
  };
  const failMutating = (err: unknown): never => {
    releaseMutating();
    throw err;
  };
  // No async function around the handler's promise: exempt requests get it as it is (an async
  // function returning it cost 45-61 ns a request), the others with one reaction that gives the
  // budget back (35-38 ns instead of try/await's 79-84; promise-hops.mjs, load 12;
  // docs/performance.md, "apiserver").
  return (next) => (ctx) => (isExempt(ctx) ? next(ctx) : limited(next, ctx));

  function limited(next: Handler, ctx: RequestContext): Promise<void> {
    const isMutating = isMutatingVerb(ctx.info.verb);
    const kind = isMutating ? 'mutating' : 'readOnly';
    const limit = isMutating ? limits.maxMutatingRequestsInFlight : limits.maxRequestsInFlight;
    const current = isMutating ? mutating : readOnly;
    if (limit > 0 && current >= limit) {
      metrics.droppedRequests.labels(kind).inc();
      writeError(ctx, newTooManyRequests('Too many requests, please try again later.', 1));
      return Promise.resolve();
    }
    if (isMutating) gauges.mutating.set(++mutating);
    else gauges.readOnly.set(++readOnly);
    let pending: Promise<void>;
    try {
      pending = next(ctx);
    } catch (err) {
      if (isMutating) releaseMutating();
      else releaseReadOnly();
      return Promise.reject(err);
    }
    return isMutating ? pending.then(releaseMutating, failMutating) : pending.then(releaseReadOnly, failReadOnly);
  }
}
