import { LRUCache } from 'lru-cache';
import { Agent, request, type Dispatcher, type buildConnector } from 'undici';
import type { Registry } from 'prom-client';
import { CelTypes, compile, requestActivation, type CelProgram } from '@plat/cel';
import { AuthSpecError, type Attributes, type AuthorizationResult, type Authorizer, type Decision, type RequestScope, type SubjectRules } from '../interface.js';
import {
  parseSubjectAccessReviewStatus,
  subjectAccessReviewBody,
  subjectAccessReviewSpec,
  WebhookAnswerError,
  type SubjectAccessReviewSpecV1,
} from './subject-access-review.js';
import { WebhookMetrics } from './webhook-metrics.js';
import type { WebhookAuthorizerSpec, WebhookConnection } from './webhook-authorizer-spec.js';

export interface WebhookAuthorizerOptions {
  registry?: Registry;
  /** Shared metrics when several webhook authorizers register on one registry. */
  metrics?: WebhookMetrics;
  /** An undici connect function (for example the `controlplane` egress connector). */
  connect?: buildConnector.connector;
  /** Adds trace-context headers (traceparent) to the outgoing review; `scope` is the authorize call's. */
  injectHeaders?: (headers: Record<string, string>, scope?: RequestScope) => void;
  maxCacheEntries?: number;
  now?: () => number;
}

interface CachedDecision {
  decision: Decision;
  reason: string;
}

/**
 * Kubernetes' webhook authorizer: matchConditions (CEL over `request`, all must be true; an empty
 * list matches every request) decide whether the webhook is asked; a SubjectAccessReview is POSTed
 * over HTTPS with the PlatConfig credentials and `timeout`; allowed answers are cached for
 * authorizedTTL and the others for unauthorizedTTL, keyed by the whole review spec; errors,
 * timeouts, non-200 answers, malformed reviews and match-condition errors get the failure policy.
 * The cache is least-recently-used with a TTL per entry, as Kubernetes' (an LRUExpireCache in
 * staging/src/k8s.io/apiserver/plugin/pkg/authorizer/webhook/webhook.go); a TTL of 0 caches nothing.
 */
export class WebhookAuthorizer implements Authorizer {
  private readonly conditions: CelProgram[];
  private readonly cache: LRUCache<string, CachedDecision>;
  private readonly dispatcher: Dispatcher;
  private readonly metrics: WebhookMetrics;
  private readonly countDecision: (decision: 'Allow' | 'Deny' | 'NoOpinion') => void;
  private readonly onFailure: Decision;

  constructor(
    private readonly spec: WebhookAuthorizerSpec,
    private readonly connection: WebhookConnection,
    private readonly opts: WebhookAuthorizerOptions = {},
  ) {
    this.conditions = spec.matchConditions.map(({ expression, program }) => {
      if (program) return program;
      const result = compile('request', expression, [CelTypes.Bool]);
      if (!result.ok) throw new AuthSpecError(`authorizer ${JSON.stringify(spec.name)}: match condition ${JSON.stringify(expression)}: ${result.issue.detail}`);
      return result.program;
    });
    // ttlResolution 0: every lookup reads the clock (an injected `now` must take effect at once).
    const now = opts.now;
    this.cache = new LRUCache({ max: opts.maxCacheEntries ?? 8192, ttlResolution: 0, perf: now ? { now } : undefined });
    this.metrics = opts.metrics ?? new WebhookMetrics(opts.registry);
    this.countDecision = this.metrics.decisionCounter('Webhook', spec.name);
    this.onFailure = spec.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion';
    this.dispatcher = new Agent({
      connect: opts.connect ?? {
        ca: connection.ca,
        cert: connection.cert,
        key: connection.key,
        servername: connection.tlsServerName,
        rejectUnauthorized: !connection.insecureSkipTLSVerify,
      },
      connections: 16,
    });
  }

  get name(): string {
    return this.spec.name;
  }

  /** Kubernetes' WebhookAuthorizer.RulesFor: a webhook's rules cannot be listed. */
  rulesFor(): SubjectRules {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  async authorize(attrs: Attributes, scope?: RequestScope): Promise<AuthorizationResult> {
    const result = await this.decide(attrs, scope);
    this.countDecision(result.decision);
    return result;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async decide(attrs: Attributes, scope: RequestScope | undefined): Promise<AuthorizationResult> {
    const reviewSpec = subjectAccessReviewSpec(attrs);
    if (this.conditions.length) {
      const labels = { type: 'Webhook', name: this.spec.name };
      const activation = requestActivation(reviewSpec);
      for (const condition of this.conditions) {
        this.metrics.matchConditionEvaluations.inc(labels);
        let matched: unknown;
        try {
          matched = condition.evaluate(activation);
        } catch (err) {
          this.metrics.matchConditionErrors.inc(labels);
          return {
            decision: this.onFailure,
            reason: `authorizer ${JSON.stringify(this.spec.name)}: match condition ${JSON.stringify(condition.expression)} failed: ${(err as Error).message}`,
          };
        }
        if (matched !== true) {
          this.metrics.matchConditionExclusions.inc(labels);
          return { decision: 'NoOpinion', reason: '' };
        }
      }
    }

    const key = JSON.stringify(reviewSpec);
    const cached = this.cache.get(key);
    if (cached) {
      this.metrics.cacheHits.inc({ name: this.spec.name, decision: cached.decision.toLowerCase() });
      return { decision: cached.decision, reason: cached.reason };
    }

    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const status = await this.call(reviewSpec, scope);
      this.metrics.duration.observe({ name: this.spec.name, result: 'success' }, seconds());
      const decision: Decision = status.allowed ? 'Allow' : status.denied ? 'Deny' : 'NoOpinion';
      const reason = status.evaluationError ? [status.reason, status.evaluationError].filter(Boolean).join(': ') : status.reason;
      const ttl = status.allowed ? this.spec.authorizedTTLMs : this.spec.unauthorizedTTLMs;
      if (ttl > 0) this.cache.set(key, { decision, reason }, { ttl });
      return { decision, reason };
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT';
      this.metrics.duration.observe({ name: this.spec.name, result: timedOut ? 'timeout' : 'error' }, seconds());
      this.metrics.failures.inc({ name: this.spec.name, error_type: timedOut ? 'timeout' : 'error' });
      const detail = timedOut ? `the webhook did not answer within ${this.spec.timeoutMs}ms` : (err as Error).message;
      return { decision: this.onFailure, reason: `authorizer ${JSON.stringify(this.spec.name)}: ${detail}` };
    }
  }

  private async call(reviewSpec: SubjectAccessReviewSpecV1, scope: RequestScope | undefined) {
    const signal = scope?.signal;
    const version = this.spec.subjectAccessReviewVersion;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.connection.token) headers.authorization = `Bearer ${this.connection.token}`;
    this.opts.injectHeaders?.(headers, scope);
    const timeout = AbortSignal.timeout(this.spec.timeoutMs);
    const res = await request(this.connection.server, {
      method: 'POST',
      dispatcher: this.dispatcher,
      headers,
      body: JSON.stringify(subjectAccessReviewBody(reviewSpec, version)),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headersTimeout: this.spec.timeoutMs,
      bodyTimeout: this.spec.timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      throw new WebhookAnswerError(`the webhook answered ${res.statusCode}: ${text.slice(0, 200)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new WebhookAnswerError(`the webhook answer is not JSON: ${(err as Error).message}`, { cause: err });
    }
    return parseSubjectAccessReviewStatus(body, version);
  }
}
