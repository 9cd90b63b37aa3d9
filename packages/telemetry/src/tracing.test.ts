import { context, trace } from '@opentelemetry/api';
import { startOtlpReceiver } from './testing.js';
import { createTracing, disabledTracing, otlpExporterUrl, type Tracing } from './index.js';

type Receiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const sampledParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const unsampledParent = '00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-00';

/** Runs one "request": a root span from the given headers with one child, then flushes. */
async function request(tracing: Tracing, headers: Record<string, string>, name: string) {
  const parent = tracing.extract(headers);
  const span = tracing.tracer.startSpan(name, { attributes: { 'http.request.method': 'GET' } }, parent);
  const child = tracing.tracer.startSpan('authentication', {}, trace.setSpan(parent, span));
  child.end();
  span.end();
  await tracing.forceFlush();
  return span.spanContext();
}

async function withTracing(samplingRatePerMillion: number | undefined, run: (t: Tracing) => Promise<void>) {
  const tracing = await createTracing(
    { endpoint: receiver.endpoint, samplingRatePerMillion },
    { serviceVersion: '0.1.0', instanceId: 'test-instance', exportDelayMs: 10 },
  );
  try {
    await run(tracing);
  } finally {
    await tracing.shutdown();
  }
}

const received = (name: string) => receiver.spans.filter((s) => s.name === name || s.name === `${name}/child`);

describe('OTLP gRPC export', () => {
  it('exports every request at 1,000,000 per million with parent/child structure and resource attributes', async () => {
    await withTracing(1_000_000, async (t) => {
      const ctx = await request(t, {}, 'full-rate');
      const [root] = receiver.spans.filter((s) => s.name === 'full-rate');
      expect(root).toMatchObject({ spanId: ctx.spanId, parentSpanId: '', attributes: { 'http.request.method': 'GET' } });
      expect(root!.resource).toMatchObject({ 'service.name': 'apiserver', 'service.version': '0.1.0', 'service.instance.id': 'test-instance' });
      const child = receiver.spans.find((s) => s.name === 'authentication' && s.parentSpanId === ctx.spanId);
      expect(child?.traceId).toBe(ctx.traceId);
    });
  });

  it('exports nothing at rate 0, but keeps a sampled parent\'s trace', async () => {
    await withTracing(0, async (t) => {
      await request(t, {}, 'rate-zero-root');
      await request(t, { traceparent: sampledParent }, 'rate-zero-parented');
    });
    expect(received('rate-zero-root')).toEqual([]);
    const [span] = received('rate-zero-parented');
    expect(span).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' });
  });

  it('with the rate unset samples only under a sampled parent', async () => {
    await withTracing(undefined, async (t) => {
      await request(t, {}, 'unset-root');
      await request(t, { traceparent: unsampledParent }, 'unset-unsampled-parent');
      await request(t, { traceparent: sampledParent }, 'unset-sampled-parent');
    });
    expect(received('unset-root')).toEqual([]);
    expect(received('unset-unsampled-parent')).toEqual([]);
    expect(received('unset-sampled-parent')).toHaveLength(1);
  });

  it('honours an unsampled parent even at full rate', async () => {
    await withTracing(1_000_000, async (t) => {
      await request(t, { traceparent: unsampledParent }, 'full-unsampled-parent');
    });
    expect(received('full-unsampled-parent')).toEqual([]);
  });

  it('injects traceparent into outgoing headers', async () => {
    await withTracing(1_000_000, async (t) => {
      const span = t.tracer.startSpan('outgoing');
      const headers: Record<string, string> = {};
      t.inject(trace.setSpan(context.active(), span), headers);
      span.end();
      expect(headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    });
  });

  it('never fails the caller when the collector is down, and reports the export error', async () => {
    const errors: Error[] = [];
    const tracing = await createTracing(
      { endpoint: '127.0.0.1:1', samplingRatePerMillion: 1_000_000 },
      { serviceVersion: '0.1.0', instanceId: 'x', exportDelayMs: 10, onExportError: (e) => errors.push(e) },
    );
    tracing.tracer.startSpan('lost').end();
    await expect(tracing.forceFlush()).resolves.toBeUndefined();
    await tracing.shutdown();
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('root sampling', () => {
  it('says whether a request without a parent can be sampled', async () => {
    for (const [rate, expected] of [[undefined, false], [0, false], [1, true], [1_000_000, true]] as const) {
      const t = await createTracing({ endpoint: receiver.endpoint, samplingRatePerMillion: rate }, { serviceVersion: '0', instanceId: 'x' });
      expect(t.samplesRoots).toBe(expected);
      await t.shutdown();
    }
    expect(disabledTracing().samplesRoots).toBe(false);
  });
});

describe('tracing off', () => {
  it('uses the no-op tracer and propagates nothing', () => {
    const off = disabledTracing();
    const span = off.tracer.startSpan('x');
    expect(span.isRecording()).toBe(false);
    const headers: Record<string, string> = {};
    off.inject(context.active(), headers);
    expect(headers).toEqual({});
  });
});

describe('endpoint', () => {
  it('turns host:port and dns endpoints into insecure URLs and keeps unix sockets', () => {
    expect(otlpExporterUrl(undefined)).toBe('http://localhost:4317');
    expect(otlpExporterUrl('collector:4317')).toBe('http://collector:4317');
    expect(otlpExporterUrl('dns:///collector:4317')).toBe('http://collector:4317');
    expect(otlpExporterUrl('dns://8.8.8.8/collector:4317')).toBe('http://collector:4317');
    expect(otlpExporterUrl('unix:///run/otel.sock')).toBe('unix:///run/otel.sock');
  });
});
