import { createTracing, type Tracing } from '@plat/telemetry';
import { startOtlpReceiver } from '@plat/telemetry/testing';
import { bundle, ctbPath, startCluster, type TestCluster } from '../cluster.js';

/** The value of one series of a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('two servers in one process', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: Tracing;
  let a: TestCluster;
  let b: TestCluster;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = await createTracing({ endpoint: receiver.endpoint, samplingRatePerMillion: 1_000_000 }, { serviceVersion: '0.1.0', instanceId: 'server-a', exportDelayMs: 10 });
    // Different options each: A traced at full sampling with its own version, B untraced without the review APIs.
    a = await startCluster({ tracing, version: { gitVersion: 'v1.32.0-a' }, shutdownDelayMs: 1000 });
    b = await startCluster({ version: { gitVersion: 'v1.32.0-b' }, reviews: false });
    for (const c of [a, b]) expect((await c.req('admin', 'POST', ctbPath, { body: bundle('shared-name', c.anchorPem) })).status).toBe(201);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await tracing.shutdown();
    await receiver.close();
  });

  it('keep their requests apart: spans, metrics, versions and APIs of one never show in the other', async () => {
    // Interleaved and concurrent, so that requests of both are in flight at once.
    const rounds = 10;
    const answers = await Promise.all(
      Array.from({ length: rounds }, (_, i) => [a, b].map((c) => c.req(i % 2 ? 'reader' : 'admin', 'GET', `${ctbPath}/shared-name`))).flat(),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(2 * rounds).fill(200));
    const auditIds = (c: TestCluster) => answers.filter((_, i) => (i % 2 === 0) === (c === a)).map((r) => String(r.headers['audit-id']));

    // Every request of A has its own trace, its children under its own root; B's have none.
    const deadline = Date.now() + 15_000;
    const rootOf = (id: string) => receiver.spans.find((s) => s.attributes['apiserver.audit_id'] === id);
    while (auditIds(a).some((id) => !rootOf(id)) && Date.now() < deadline) {
      await tracing.forceFlush();
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const id of auditIds(a)) {
      const root = rootOf(id)!;
      expect(root).toBeDefined();
      const children = receiver.spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId).map((s) => s.name);
      expect(children.sort()).toEqual(['authentication', 'authorization', 'storage.get']);
    }
    expect(receiver.spans.filter((s) => auditIds(b).includes(String(s.attributes['apiserver.audit_id'])))).toEqual([]);

    // Each server's metrics count its own requests only (plus the create before).
    for (const c of [a, b]) {
      const text = await c.server.metrics.metrics();
      const gets = sample(text, 'apiserver_request_total', { verb: 'GET', resource: 'clustertrustbundles', code: '200' });
      expect(gets).toBe(rounds);
    }
    expect(a.server.metrics).not.toBe(b.server.metrics);

    expect((await a.req('reader', 'GET', '/version')).json['gitVersion']).toBe('v1.32.0-a');
    expect((await b.req('reader', 'GET', '/version')).json['gitVersion']).toBe('v1.32.0-b');
    // The review APIs: discovered on A, unknown to B.
    expect((await a.req('reader', 'GET', '/apis/authentication.k8s.io/v1')).status).toBe(200);
    expect((await b.req('reader', 'GET', '/apis/authentication.k8s.io/v1')).status).toBe(404);
  });

  it('shut down one at a time: A failing /readyz while it drains leaves B ready', async () => {
    const closing = a.server.close();
    try {
      // During A's shutdown delay its listener still answers.
      expect((await a.req('admin', 'GET', '/readyz')).status).toBe(500);
      expect((await b.req('admin', 'GET', '/readyz')).status).toBe(200);
    } finally {
      await closing;
    }
    expect((await b.req('admin', 'GET', `${ctbPath}/shared-name`)).status).toBe(200);
  });
});
