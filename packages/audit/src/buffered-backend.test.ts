import { Registry } from 'prom-client';
import type { AuditBackend } from './backend.js';
import { createBufferedBackend, defaultLogBatchConfig, defaultWebhookBatchConfig, type BatchConfig } from './buffered-backend.js';
import type { AuditEvent } from './event.js';
import { createAuditMetrics } from './metrics.js';

function event(i: number): AuditEvent {
  return { kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `id-${i}`, stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: {}, requestReceivedTimestamp: '', stageTimestamp: '' };
}

function capture() {
  const batches: { at: number; ids: string[] }[] = [];
  const backend: AuditBackend = { name: 'fake', processEvents: (evs) => (batches.push({ at: performance.now(), ids: evs.map((e) => e.auditID) }), true), shutdown: async () => undefined };
  return { batches, backend };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `n` batches went out (15 s at most): fixed sleeps race a loaded machine. */
async function batchesReach(batches: unknown[], n: number): Promise<void> {
  for (const end = Date.now() + 15_000; batches.length < n && Date.now() < end; ) await sleep(5);
}
const config = (over: Partial<BatchConfig>): BatchConfig => ({ ...defaultWebhookBatchConfig, throttleEnable: false, ...over });

// k8s.io/apiserver plugin/pkg/audit/buffered/buffered_test.go (TestBufferedBackendCollectEvents*,
// TestBufferedBackendProcessEventsAfterStop, TestBufferedBackendProcessEventsBufferFull).
describe('buffered backend', () => {
  it('has Kubernetes’ defaults: webhook 10000/400/30s/10 qps/15 burst, log one event a batch', () => {
    expect(defaultWebhookBatchConfig).toEqual({ bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQPS: 10, throttleBurst: 15 });
    expect(defaultLogBatchConfig).toMatchObject({ bufferSize: 10_000, maxBatchSize: 1, throttleEnable: false });
  });

  it('sends full batches at once and the rest after the max wait', async () => {
    const { batches, backend } = capture();
    // A 1 s wait, so that "not yet" below holds however late a loaded machine looks.
    const b = createBufferedBackend(backend, config({ maxBatchSize: 3, maxBatchWaitMs: 1000 }), createAuditMetrics(new Registry()));
    const start = performance.now();
    for (let i = 0; i < 7; i++) b.processEvents([event(i)]);
    await batchesReach(batches, 2);
    expect(batches.map((x) => x.ids)).toEqual([
      ['id-0', 'id-1', 'id-2'],
      ['id-3', 'id-4', 'id-5'],
    ]);
    await batchesReach(batches, 3);
    expect(batches.map((x) => x.ids)[2]).toEqual(['id-6']);
    expect(batches[2]!.at - start).toBeGreaterThanOrEqual(990);
    await b.shutdown();
  });

  it('drops and counts what does not fit in the buffer, and what comes after shutdown', async () => {
    const { batches, backend } = capture();
    const registry = new Registry();
    const b = createBufferedBackend(backend, config({ bufferSize: 4, maxBatchSize: 100, maxBatchWaitMs: 60_000 }), createAuditMetrics(registry));
    expect(b.processEvents([event(0), event(1), event(2)])).toBe(true);
    expect(b.processEvents([event(3), event(4), event(5)])).toBe(true);
    await b.shutdown();
    expect(batches.map((x) => x.ids)).toEqual([['id-0', 'id-1', 'id-2', 'id-3']]);
    b.processEvents([event(6)]);
    expect(await registry.metrics()).toMatch(/^apiserver_audit_error_total\{plugin="buffered"\} 3$/m);
  });

  it('hands a delegate that stores events alone (the log) everything due in one call, and while a batch waits only the full batches', async () => {
    const { batches, backend } = capture();
    const alone: AuditBackend = { ...backend, storesEventsAlone: true };
    const b = createBufferedBackend(alone, defaultLogBatchConfig, createAuditMetrics(new Registry()));
    for (let i = 0; i < 4; i++) b.processEvents([event(i)]);
    await sleep(5);
    b.processEvents([event(4)]);
    await sleep(5);
    expect(batches.map((x) => x.ids)).toEqual([['id-0', 'id-1', 'id-2', 'id-3'], ['id-4']]);
    await b.shutdown();

    const waiting = capture();
    const w = createBufferedBackend({ ...waiting.backend, storesEventsAlone: true }, config({ maxBatchSize: 3, maxBatchWaitMs: 150 }), createAuditMetrics(new Registry()));
    for (let i = 0; i < 7; i++) w.processEvents([event(i)]);
    await sleep(30);
    expect(waiting.batches.map((x) => x.ids)).toEqual([['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5']]);
    await w.shutdown();
    expect(waiting.batches.map((x) => x.ids)[1]).toEqual(['id-6']);
  });

  it('throttles batches to the QPS after the burst', async () => {
    const { batches, backend } = capture();
    // 5 a second: 200 ms between batches past the burst leaves a loaded machine room to see the burst alone.
    const b = createBufferedBackend(backend, config({ maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: true, throttleQPS: 5, throttleBurst: 2 }), createAuditMetrics(new Registry()));
    for (let i = 0; i < 6; i++) b.processEvents([event(i)]);
    await batchesReach(batches, 2);
    expect(batches).toHaveLength(2);
    await batchesReach(batches, 6);
    expect(batches).toHaveLength(6);
    // Four batches past the burst at 5 a second: at least 750 ms after the first.
    expect(batches[5]!.at - batches[0]!.at).toBeGreaterThanOrEqual(750);
    await b.shutdown();
  });
});
