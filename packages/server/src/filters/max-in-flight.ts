import { newTooManyRequests } from '@plat/api-model';
import type { Filter } from '../context.js';
import type { ServerMetrics } from '../metrics.js';
import { isMutatingVerb } from '../request-info.js';
import { writeError } from '../response.js';

export interface InFlightLimits {
  /** --max-requests-inflight (0 = no limit). */
  maxRequestsInFlight: number;
  /** --max-mutating-requests-inflight (0 = no limit). */
  maxMutatingRequestsInFlight: number;
}

/**
 * Kubernetes' max-in-flight filter: read-only and mutating requests have separate budgets; over
 * budget answers 429 TooManyRequests with Retry-After: 1. Long-running requests (watches) do not
 * count.
 */
export function withMaxInFlight(limits: InFlightLimits, metrics: ServerMetrics): Filter {
  let readOnly = 0;
  let mutating = 0;
  const gauges = { readOnly: metrics.inflight.labels('readOnly'), mutating: metrics.inflight.labels('mutating') };
  return (next) => async (ctx) => {
    if (ctx.longRunning) return next(ctx);
    const isMutating = isMutatingVerb(ctx.info.verb);
    const kind = isMutating ? 'mutating' : 'readOnly';
    const limit = isMutating ? limits.maxMutatingRequestsInFlight : limits.maxRequestsInFlight;
    const current = isMutating ? mutating : readOnly;
    if (limit > 0 && current >= limit) {
      metrics.droppedRequests.labels(kind).inc();
      writeError(ctx, newTooManyRequests('Too many requests, please try again later.', 1));
      return;
    }
    if (isMutating) mutating++;
    else readOnly++;
    gauges[kind].set(isMutating ? mutating : readOnly);
    try {
      await next(ctx);
    } finally {
      if (isMutating) mutating--;
      else readOnly--;
      gauges[kind].set(isMutating ? mutating : readOnly);
    }
  };
}
