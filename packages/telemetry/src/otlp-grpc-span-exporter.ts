/**
 * The OTLP gRPC trace exporter for batches that are already encoded: what
 * @opentelemetry/exporter-trace-otlp-grpc's OTLPTraceExporter builds (the same gRPC transport,
 * export timeout, retries, concurrency limit and partial-success handling, from
 * @opentelemetry/otlp-grpc-exporter-base), with the request bytes taken as they come instead of
 * serialized from span objects. The bytes are those OTLPTraceExporter would send for the same
 * spans (otlp-trace-encoder.ts; a test sends both to one receiver and compares).
 */
import type { EncodedSpanExporter, EncodedSpans } from './batch-encoding-span-processor.js';

/** `url`: `http://host:port` (insecure, as the spec says for `endpoint`) or `unix://path`. */
export async function createOtlpGrpcSpanExporter(url: string): Promise<EncodedSpanExporter> {
  const [{ OTLPExporterBase }, { convertLegacyOtlpGrpcOptions, createOtlpGrpcExportDelegate }, { ProtobufTraceSerializer }, grpc] = await Promise.all([
    import('@opentelemetry/otlp-exporter-base'),
    import('@opentelemetry/otlp-grpc-exporter-base'),
    import('@opentelemetry/otlp-transformer'),
    import('@grpc/grpc-js'),
  ]);
  return new OTLPExporterBase<EncodedSpans>(
    createOtlpGrpcExportDelegate(
      convertLegacyOtlpGrpcOptions({ url, credentials: grpc.credentials.createInsecure() }, 'TRACES'),
      {
        serializeRequest: (batch: EncodedSpans) => batch.bytes,
        deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      // The component type OTLPTraceExporter reports in the exporter's self-observability metrics.
      'otlp_grpc_span_exporter',
      { name: 'span', countItems: (batch: EncodedSpans) => batch.spans },
      undefined,
      'TraceExportService',
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    ),
  );
}
