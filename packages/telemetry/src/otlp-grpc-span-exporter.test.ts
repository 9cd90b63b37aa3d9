import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import * as grpc from '@grpc/grpc-js';
import { startOtlpReceiver } from '../test/otlp-receiver.js';
import { createOtlpGrpcSpanExporter } from './otlp-grpc-span-exporter.js';
import { encodeTraceRequest } from './otlp-trace-encoder.js';

describe('createOtlpGrpcSpanExporter', () => {
  it('delivers to a real receiver the request OTLPTraceExporter sends for the same spans', async () => {
    const receiver = await startOtlpReceiver();
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'apiserver' }),
      spanProcessors: [new SimpleSpanProcessor(memory)],
    }).getTracer('plat.io/apiserver', '0.1.0');
    const root = tracer.startSpan('GET /version', { attributes: { 'http.request.method': 'GET', 'user_agent.original': 'kubectl/v1.34 ✓' } });
    root.addEvent('served');
    root.end();
    const spans = memory.getFinishedSpans();
    const url = `http://${receiver.endpoint}`;
    const exportWith = (send: (done: (r: ExportResult) => void) => void) => new Promise<ExportResult>((resolve) => send(resolve));
    try {
      const library = new OTLPTraceExporter({ url, credentials: grpc.credentials.createInsecure() });
      expect((await exportWith((done) => library.export(spans, done))).code).toBe(ExportResultCode.SUCCESS);
      await library.shutdown();
      const ours = await createOtlpGrpcSpanExporter(url);
      expect((await exportWith((done) => ours.export({ bytes: encodeTraceRequest(spans), spans: spans.length }, done))).code).toBe(ExportResultCode.SUCCESS);
      await ours.shutdown();
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.requests[1]!.equals(receiver.requests[0]!)).toBe(true);
      expect(receiver.spans.map((s) => s.name)).toEqual(['GET /version', 'GET /version']);
    } finally {
      await receiver.close();
    }
  });

  it('reports a failed export when no receiver listens', async () => {
    const exporter = await createOtlpGrpcSpanExporter('http://127.0.0.1:1');
    const result = await new Promise<ExportResult>((resolve) => exporter.export({ bytes: new Uint8Array(0), spans: 0 }, resolve));
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error).toBeInstanceOf(Error);
    await exporter.shutdown();
  }, 20_000);
});
