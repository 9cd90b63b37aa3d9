import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, AlwaysOnSampler, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BatchEncodingSpanProcessor, type EncodedSpanExporter, type EncodedSpans } from './batch-encoding-span-processor.js';
import { encodeTraceRequest } from './otlp-trace-encoder.js';

/**
 * An exporter that keeps what it is given and answers when the test says so: the processor's
 * batching and queueing seen from its exporter (the gRPC transport has its own test in
 * otlp-grpc-span-exporter.test.ts).
 */
function heldExporter() {
  const batches: EncodedSpans[] = [];
  const waiting: Array<(r: ExportResult) => void> = [];
  const calls = { forceFlush: 0, shutdown: 0 };
  const exporter: EncodedSpanExporter = {
    export(batch, done) {
      batches.push(batch);
      waiting.push(done);
    },
    forceFlush: async () => {
      calls.forceFlush++;
    },
    shutdown: async () => {
      calls.shutdown++;
    },
  };
  const answer = (code = ExportResultCode.SUCCESS) => waiting.shift()!({ code });
  return { exporter, batches, waiting, answer, calls };
}

function setup(opts: ConstructorParameters<typeof BatchEncodingSpanProcessor>[1], sampler: Sampler = new AlwaysOnSampler()) {
  const held = heldExporter();
  const processor = new BatchEncodingSpanProcessor(held.exporter, opts);
  const ended: ReadableSpan[] = [];
  const provider = new BasicTracerProvider({
    sampler,
    // Records what the processor was given, in order, to compare with the batches' bytes.
    spanProcessors: [processor, { onStart: () => undefined, onEnd: (s) => void ended.push(s), forceFlush: async () => undefined, shutdown: async () => undefined }],
  });
  const tracer = provider.getTracer('test');
  const span = (name: string) => tracer.startSpan(name).end();
  return { ...held, processor, ended, span };
}

const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('BatchEncodingSpanProcessor', () => {
  it('exports a batch as soon as it is full, encoded as the request of its spans', () => {
    const t = setup({ maxExportBatchSize: 2, scheduledDelayMillis: 60_000 });
    t.span('a');
    expect(t.batches).toHaveLength(0);
    t.span('b');
    expect(t.batches).toHaveLength(1);
    expect(t.batches[0]!.spans).toBe(2);
    expect(Buffer.from(t.batches[0]!.bytes).equals(Buffer.from(encodeTraceRequest(t.ended)))).toBe(true);
  });

  it('exports a partial batch after the scheduled delay', async () => {
    const t = setup({ maxExportBatchSize: 100, scheduledDelayMillis: 30 });
    t.span('lonely');
    expect(t.batches).toHaveLength(0);
    await until(() => t.batches.length === 1);
    expect(t.batches[0]!.spans).toBe(1);
  });

  it('runs one export at a time and sends the next batch when the first is answered', () => {
    const t = setup({ maxExportBatchSize: 1, scheduledDelayMillis: 60_000 });
    t.span('first');
    t.span('second');
    expect(t.batches).toHaveLength(1);
    t.answer();
    expect(t.batches).toHaveLength(2);
    // A failed export does not stop the ones after it.
    t.span('third');
    t.answer(ExportResultCode.FAILED);
    expect(t.batches).toHaveLength(3);
  });

  it('drops spans beyond maxQueueSize while the exporter is busy, and reports how many', () => {
    const dropped: number[] = [];
    const t = setup({ maxExportBatchSize: 2, maxQueueSize: 4, scheduledDelayMillis: 60_000, onDropped: (n) => dropped.push(n) });
    for (let i = 0; i < 7; i++) t.span(`s${i}`);
    // 2 in the export in flight, 2 waiting: the other 3 had no room.
    expect(t.processor.droppedSpans).toBe(3);
    expect(t.batches).toHaveLength(1);
    t.answer();
    expect(t.batches).toHaveLength(2);
    expect(dropped).toEqual([3]);
    // Room again once the queue drains.
    t.answer();
    t.span('after');
    t.span('after-2');
    expect(t.batches).toHaveLength(3);
    expect(t.processor.droppedSpans).toBe(3);
  });

  it('skips spans that are recorded but not sampled', async () => {
    const recordOnly: Sampler = { shouldSample: () => ({ decision: SamplingDecision.RECORD }), toString: () => 'RecordOnly' };
    const t = setup({ maxExportBatchSize: 1 }, recordOnly);
    t.span('recorded');
    expect(t.ended).toHaveLength(1);
    await t.processor.forceFlush();
    expect(t.batches).toHaveLength(0);
  });

  it('forceFlush sends the partial batch and resolves when no export is left', async () => {
    const t = setup({ maxExportBatchSize: 10, scheduledDelayMillis: 60_000 });
    t.span('a');
    let flushed = false;
    const flush = t.processor.forceFlush().then(() => (flushed = true));
    expect(t.batches).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(flushed).toBe(false);
    t.answer();
    await flush;
    expect(t.calls.forceFlush).toBe(1);
  });

  it('shutdown flushes, shuts the exporter down once, and ignores later spans', async () => {
    const t = setup({ maxExportBatchSize: 10, scheduledDelayMillis: 60_000 });
    t.span('a');
    const done = Promise.all([t.processor.shutdown(), t.processor.shutdown()]);
    t.answer();
    await done;
    expect(t.calls.shutdown).toBe(1);
    t.span('late');
    await t.processor.forceFlush();
    expect(t.batches).toHaveLength(1);
  });

  it('frees the queue once when an exporter answers and then throws', () => {
    let calls = 0;
    const processor = new BatchEncodingSpanProcessor(
      {
        // The first export answers and then throws; the others are never answered.
        export: (_batch, done) => {
          if (++calls > 1) return;
          done({ code: ExportResultCode.SUCCESS });
          throw new Error('after answering');
        },
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
      { maxExportBatchSize: 1, maxQueueSize: 2 },
    );
    const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
    for (let i = 0; i < 5; i++) tracer.startSpan(`s${i}`).end();
    // s0 exported; s1 in the held export and s2 waiting fill the queue; s3 and s4 have no room.
    expect(calls).toBe(2);
    expect(processor.droppedSpans).toBe(2);
  });

  it('goes on after an exporter that throws', () => {
    let calls = 0;
    const processor = new BatchEncodingSpanProcessor(
      {
        export: () => {
          calls++;
          throw new Error('boom');
        },
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
      { maxExportBatchSize: 1 },
    );
    const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
    tracer.startSpan('a').end();
    tracer.startSpan('b').end();
    expect(calls).toBe(2);
  });
});
