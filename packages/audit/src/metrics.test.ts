import { Registry } from 'prom-client';
import { createAuditMetrics } from './metrics.js';

// The series of k8s.io/apiserver pkg/audit/metrics.go.
describe('audit metrics', () => {
  it('counts events, levels, errors and rejected requests under Kubernetes’ names', async () => {
    const registry = new Registry();
    const m = createAuditMetrics(registry);
    for (let i = 0; i < 3; i++) m.event();
    m.level('Metadata');
    m.level('Metadata');
    m.level('None');
    m.error('log', 2);
    m.requestRejected();
    const text = await registry.metrics();
    expect(text).toMatch(/^apiserver_audit_event_total 3$/m);
    expect(text).toMatch(/^apiserver_audit_level_total\{level="Metadata"\} 2$/m);
    expect(text).toMatch(/^apiserver_audit_level_total\{level="None"\} 1$/m);
    expect(text).not.toMatch(/level="RequestResponse"/);
    expect(text).toMatch(/^apiserver_audit_error_total\{plugin="log"\} 2$/m);
    expect(text).toMatch(/^apiserver_audit_requests_rejected_total 1$/m);
  });

  it('keeps counting across reads, and two sets on one registry count into the same series', async () => {
    const registry = new Registry();
    const a = createAuditMetrics(registry);
    const b = createAuditMetrics(registry);
    a.event();
    a.level('Request');
    await registry.metrics();
    b.event();
    b.level('Request');
    a.event();
    const text = await registry.metrics();
    expect(text).toMatch(/^apiserver_audit_event_total 3$/m);
    expect(text).toMatch(/^apiserver_audit_level_total\{level="Request"\} 2$/m);
    expect(await registry.getSingleMetricAsString('apiserver_audit_event_total')).toMatch(/ 3$/m);
  });
});
