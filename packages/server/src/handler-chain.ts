/**
 * The filter chain every request walks, outermost first (kube's DefaultBuildHandlerChain in
 * k8s.io/apiserver/pkg/server/config.go, which writes the same list innermost first).
 *
 * Where ours differs from kube-apiserver's, and why:
 * - Accounting comes before request info: a target that request info refuses (400) is still
 *   counted and drained. kube counts in-flight requests (WithWaitGroup) inside request info, and
 *   its Go HTTP server refuses such targets before any filter.
 * - Tracing sits outside panic recovery: the request span records the 500 that panic recovery
 *   writes. kube has panic recovery outermost (a Go panic must not kill the process; a thrown
 *   error here cannot) and tracing inside request info.
 * - The request log comes before the timeout, so a 504 gets its line (kube's WithHTTPLogging is
 *   outside its timeout filter too). Request deadline and the timeout are one filter here.
 * - No CORS, HSTS, priority and fairness or probabilistic GOAWAY filters: the server has
 *   none of those features (max in-flight is kube's non-APF limiter).
 * Authentication → audit → impersonation → max in-flight → authorization is kube's order.
 */
import type { CompletedConfig } from './config.js';
import type { Filter, Handler } from './context.js';
import { auditFailedAuthentication, withAudit } from './filters/audit.js';
import { withAuthentication } from './filters/authentication.js';
import { withAuthorization } from './filters/authorization.js';
import { withImpersonation } from './filters/impersonation.js';
import { withLongRunningGauge } from './filters/long-running.js';
import { withMaxInFlight } from './filters/max-in-flight.js';
import { withPanicRecovery } from './filters/panic-recovery.js';
import { withRequestAccounting } from './filters/request-accounting.js';
import { withRequestInfo } from './filters/request-info.js';
import { withRequestLog } from './filters/request-log.js';
import { withRequestTimeout } from './filters/timeout.js';
import { withTracing } from './tracing.js';

/** Wraps `handler` (the routes) in the server's filters. */
export function buildHandlerChain(config: CompletedConfig, handler: Handler): Handler {
  const { logger, limits, metrics, authenticator, authorizer, tracing } = config;
  const filters: Array<Filter | false | undefined> = [
    // In flight until the response is flushed (graceful drain), aborted when the client goes away, request metrics at the end.
    withRequestAccounting(config.lifecycle, metrics, config.servedResources),
    // Verb, resource, namespace and long-running for everything below; a malformed target is 400 here.
    withRequestInfo(config.requestInfo),
    // Watches in apiserver_longrunning_requests while they are served.
    withLongRunningGauge(metrics),
    // The request span (only with tracing enabled) around all the work, so it sees the final status.
    tracing && withTracing(tracing),
    // A thrown error nobody turned into a Status becomes a 500, and the server keeps serving.
    withPanicRecovery(logger),
    // Logged early so that 401s, 429s and timeouts get their line too.
    withRequestLog(logger),
    // --request-timeout: a 504 and an aborted signal for what runs too long (watches exempt).
    withRequestTimeout(limits.requestTimeoutMs),
    // Who is asking: 401 for bad credentials, audited too (without a user), as kube-apiserver's
    // failed-authentication audit does from a filter just outside its authentication filter.
    withAuthentication(authenticator, logger, config.audit && auditFailedAuthentication(config.audit)),
    // Audit right after authentication, as kube-apiserver: the policy sees the user who asked
    // (before impersonation), and 403s, 429s and impersonation refusals are recorded too.
    config.audit && withAudit(config.audit),
    // Impersonate-* headers, checked against the authorizer as the real user.
    config.impersonation && withImpersonation(authorizer),
    // After the user is known, as in kube-apiserver: system:masters is exempt from the budgets.
    withMaxInFlight(limits, metrics),
    // May this user do this verb on this resource or path: 403 otherwise.
    withAuthorization(authorizer, config.ownGroupOf),
  ];
  return filters.reduceRight<Handler>((next, filter) => (filter ? filter(next) : next), handler);
}
