import type { Filter } from '../context.js';
import type { ServerMetrics } from '../metrics.js';

/** apiserver_longrunning_requests: watches being served, by resource (kube's RecordLongRunning). */
export function withLongRunningGauge(metrics: ServerMetrics): Filter {
  return (next) => (ctx) => {
    const { info } = ctx;
    if (!ctx.longRunning || !info.isResourceRequest) return next(ctx);
    const gauge = metrics.longRunning.labels({
      verb: 'WATCH',
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      scope: info.namespace ? 'namespace' : 'cluster',
      component: 'apiserver',
    });
    gauge.inc();
    return next(ctx).finally(() => gauge.dec());
  };
}
