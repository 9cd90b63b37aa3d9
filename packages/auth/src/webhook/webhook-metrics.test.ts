import { Registry } from 'prom-client';
import { WebhookMetrics } from './webhook-metrics.js';

describe('WebhookMetrics.decisionCounter', () => {
  it('adds the counted decisions to apiserver_authorization_decisions_total when read, once each', async () => {
    const registry = new Registry();
    const metrics = new WebhookMetrics(registry);
    const builtin = metrics.decisionCounter('Builtin', 'builtin');
    const policy = metrics.decisionCounter('Webhook', 'policy');
    builtin('Allow');
    builtin('Allow');
    builtin('NoOpinion');
    policy('Deny');
    const first = await registry.metrics();
    expect(first).toContain('apiserver_authorization_decisions_total{type="Builtin",name="builtin",decision="allow"} 2');
    expect(first).toContain('apiserver_authorization_decisions_total{type="Builtin",name="builtin",decision="noopinion"} 1');
    expect(first).toContain('apiserver_authorization_decisions_total{type="Webhook",name="policy",decision="deny"} 1');
    builtin('Allow');
    const second = await registry.metrics();
    expect(second).toContain('apiserver_authorization_decisions_total{type="Builtin",name="builtin",decision="allow"} 3');
    expect(second).toContain('apiserver_authorization_decisions_total{type="Webhook",name="policy",decision="deny"} 1');
  });
});
