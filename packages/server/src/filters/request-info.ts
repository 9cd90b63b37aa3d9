import type { Filter } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { writeError } from '../response.js';

/**
 * Resolves the request info (verb, API group, version, resource, namespace, name) every later
 * filter and handler reads, and whether the request is long-running (a watch). A target Go's HTTP
 * server would refuse (a malformed percent escape) is answered 400 here without the filters below
 * (kube-apiserver never sees it); its info then only labels the request's metrics.
 */
export function withRequestInfo(resolve: (method: string, path: string, query: URLSearchParams) => RequestInfo): Filter {
  return (next) => (ctx) => {
    let info: RequestInfo;
    try {
      info = resolve(ctx.method, ctx.path, ctx.query);
    } catch (err) {
      ctx.info = { isResourceRequest: false, path: ctx.path, verb: ctx.method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
      writeError(ctx, err);
      return Promise.resolve();
    }
    ctx.info = info;
    ctx.longRunning = info.verb === 'watch';
    return next(ctx);
  };
}
