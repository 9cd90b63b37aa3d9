import { Counter, Histogram, type Registry } from 'prom-client';

/** Per-authorizer metrics, named after Kubernetes' apiserver_authorization_* series. */
export class WebhookMetrics {
  readonly decisions: Counter<'type' | 'name' | 'decision'>;
  readonly duration: Histogram<'name' | 'result'>;
  readonly failures: Counter<'name' | 'error_type'>;
  readonly cacheHits: Counter<'name' | 'decision'>;
  readonly matchConditionEvaluations: Counter<'type' | 'name'>;
  readonly matchConditionErrors: Counter<'type' | 'name'>;
  readonly matchConditionExclusions: Counter<'type' | 'name'>;

  /** Decisions counted since the last scrape, by label set (see decisionCounter). */
  private readonly pendingDecisions: { labels: { type: string; name: string; decision: string }; n: number }[] = [];

  constructor(registry?: Registry) {
    const registers = registry ? [registry] : [];
    const pending = this.pendingDecisions;
    this.decisions = new Counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Authorization decisions, per authorizer type, name and decision.',
      labelNames: ['type', 'name', 'decision'],
      registers,
      collect() {
        for (const p of pending) {
          if (p.n > 0) this.inc(p.labels, p.n);
          p.n = 0;
        }
      },
    });
    this.duration = new Histogram({
      name: 'apiserver_authorization_webhook_duration_seconds',
      help: 'Webhook authorizer request latency, per name and result (success, timeout, error).',
      labelNames: ['name', 'result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.failures = new Counter({
      name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
      help: 'Webhook calls that failed, per name and error type; the failure policy decided.',
      labelNames: ['name', 'error_type'],
      registers,
    });
    this.cacheHits = new Counter({
      name: 'apiserver_authorization_webhook_cache_hits_total',
      help: 'Webhook decisions answered from the TTL cache.',
      labelNames: ['name', 'decision'],
      registers,
    });
    this.matchConditionEvaluations = new Counter({
      name: 'apiserver_authorization_match_condition_evaluations_total',
      help: 'Match condition evaluations, per authorizer.',
      labelNames: ['type', 'name'],
      registers,
    });
    this.matchConditionErrors = new Counter({
      name: 'apiserver_authorization_match_condition_evaluation_errors_total',
      help: 'Match condition evaluation errors, per authorizer.',
      labelNames: ['type', 'name'],
      registers,
    });
    this.matchConditionExclusions = new Counter({
      name: 'apiserver_authorization_match_condition_exclusions_total',
      help: 'Requests a false match condition kept from the webhook, per authorizer.',
      labelNames: ['type', 'name'],
      registers,
    });
  }

  /**
   * Counts the decisions of one authorizer. Every authorized request counts one, so the counts
   * are kept in plain numbers and added to the prom-client counter when it is read (prom-client
   * validates and hashes the label set on every `inc`).
   */
  decisionCounter(type: string, name: string): (decision: 'Allow' | 'Deny' | 'NoOpinion') => void {
    const byDecision = new Map<string, { labels: { type: string; name: string; decision: string }; n: number }>();
    return (decision) => {
      let entry = byDecision.get(decision);
      if (!entry) {
        entry = { labels: { type, name, decision: decision.toLowerCase() }, n: 0 };
        byDecision.set(decision, entry);
        this.pendingDecisions.push(entry);
      }
      entry.n++;
    };
  }
}
