import { Registry } from 'prom-client';
import type { AuditBackend } from './backend.js';
import type { AuditEvent } from './event.js';
import { createAuditMetrics } from './metrics.js';
import { createTruncateBackend, truncatedAnnotationKey } from './truncate.js';

function event(extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Request',
    auditID: 'a',
    stage: 'ResponseComplete',
    requestURI: '/',
    verb: 'create',
    user: {},
    requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z',
    stageTimestamp: '2026-01-02T03:04:05.000000Z',
    ...extra,
  };
}

function capture() {
  const batches: AuditEvent[][] = [];
  const backend: AuditBackend = { name: 'fake', processEvents: (evs) => (batches.push([...evs]), true), shutdown: async () => undefined };
  return { batches, backend };
}

const config = { maxBatchSize: 4 * 1024 * 1024, maxEventSize: 100 * 1024 };

// k8s.io/apiserver plugin/pkg/audit/truncate/truncate_test.go (TestTruncatingEvents, TestSplittingBatches).
describe('truncate backend', () => {
  it('passes an event under the limit unchanged', () => {
    const { batches, backend } = capture();
    const ev = event({ requestObject: { small: true } });
    expect(createTruncateBackend(backend, config, createAuditMetrics(new Registry())).processEvents([ev])).toBe(true);
    expect(batches).toEqual([[ev]]);
  });

  it('drops the request and response of a too large event and annotates it', () => {
    const { batches, backend } = capture();
    const big = 'A'.repeat(config.maxEventSize);
    createTruncateBackend(backend, config, createAuditMetrics(new Registry())).processEvents([event({ requestObject: big, responseObject: { big }, annotations: { keep: 'me' } })]);
    expect(batches).toHaveLength(1);
    const out = batches[0]![0]!;
    expect(out.requestObject).toBeUndefined();
    expect(out.responseObject).toBeUndefined();
    expect(out.annotations).toEqual({ keep: 'me', [truncatedAnnotationKey]: 'true' });
  });

  it('drops an event whose metadata alone is too large, and counts it', async () => {
    const { batches, backend } = capture();
    const registry = new Registry();
    const ok = createTruncateBackend(backend, config, createAuditMetrics(registry)).processEvents([event({ annotations: { key: 'A'.repeat(config.maxEventSize) } })]);
    expect(ok).toBe(false);
    expect(batches).toEqual([]);
    expect(await registry.metrics()).toMatch(/^apiserver_audit_error_total\{plugin="truncate"\} 1$/m);
  });

  it('splits a batch over the batch limit', () => {
    const { batches, backend } = capture();
    const evs = [event({ annotations: { key: 'A'.repeat(50) } }), event({ annotations: { key: 'A'.repeat(50) } })];
    createTruncateBackend(backend, { maxEventSize: config.maxEventSize, maxBatchSize: 1 }, createAuditMetrics(new Registry())).processEvents(evs);
    expect(batches.map((b) => b.length)).toEqual([1, 1]);
    const one = capture();
    createTruncateBackend(one.backend, config, createAuditMetrics(new Registry())).processEvents(evs);
    expect(one.batches.map((b) => b.length)).toEqual([2]);
  });
});
