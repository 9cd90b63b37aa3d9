import { context, trace, type Context, type Tracer } from '@opentelemetry/api';
import { otlpExporterUrl, type TracingSpec } from './tracing-config.js';

export interface TracingOptions {
  serviceVersion: string;
  instanceId: string;
  /** Export batching delay; tests shorten it. */
  exportDelayMs?: number;
  /** Reports exporter failures (they never fail requests). */
  onExportError?: (err: Error) => void;
}

/** The server's tracing: a tracer (no-op when off) and the W3C trace-context propagation helpers. */
export interface Tracing {
  readonly enabled: boolean;
  /**
   * Whether a request without an incoming trace context can be sampled at all. False with the
   * rate unset or 0: such a request cannot produce a span, so callers may skip tracing it.
   */
  readonly samplesRoots: boolean;
  readonly tracer: Tracer;
  /** The context carried by incoming `traceparent` / `tracestate` headers (the active context when off). */
  extract(headers: Record<string, string | string[] | undefined>): Context;
  /** Writes `traceparent` / `tracestate` of the given context into outgoing headers. */
  inject(ctx: Context, headers: Record<string, string>): void;
  /** Exports what is buffered. */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

const headerGetter = {
  keys: (carrier: Record<string, string | string[] | undefined>) => Object.keys(carrier),
  get: (carrier: Record<string, string | string[] | undefined>, key: string) => carrier[key.toLowerCase()],
};

/** Tracing off: the OpenTelemetry API's no-op tracer, no SDK loaded, nothing exported. */
export function disabledTracing(): Tracing {
  const tracer = trace.getTracerProvider().getTracer('noop');
  return {
    enabled: false,
    samplesRoots: false,
    tracer,
    extract: () => context.active(),
    inject: () => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

/**
 * Builds the OTLP gRPC tracer provider from a TracingConfiguration. The SDK is imported only
 * here, so a server without tracing never loads it. Sampler: ParentBased(TraceIdRatioBased(rate /
 * 1e6)) when samplingRatePerMillion is set, ParentBased(AlwaysOff) when it is not, as the spec says.
 */
export async function createTracing(spec: TracingSpec, opts: TracingOptions): Promise<Tracing> {
  const [
    { NodeTracerProvider },
    base,
    { resourceFromAttributes },
    { W3CTraceContextPropagator },
    { BatchEncodingSpanProcessor },
    { createOtlpGrpcSpanExporter },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('./batch-encoding-span-processor.js'),
    import('./otlp-grpc-span-exporter.js'),
  ]);
  const rate = spec.samplingRatePerMillion;
  const root = rate === undefined ? new base.AlwaysOffSampler() : new base.TraceIdRatioBasedSampler(rate / 1_000_000);
  const exporter = await createOtlpGrpcSpanExporter(otlpExporterUrl(spec.endpoint));
  // The OpenTelemetry SDK's BatchSpanProcessor defaults.
  const maxQueueSize = 2048;
  const processor = new BatchEncodingSpanProcessor(
    {
      export: (batch, done) =>
        exporter.export(batch, (result) => {
          if (result.error) opts.onExportError?.(result.error);
          done(result);
        }),
      forceFlush: () => exporter.forceFlush(),
      shutdown: () => exporter.shutdown(),
    },
    {
      scheduledDelayMillis: opts.exportDelayMs ?? 5000,
      maxQueueSize,
      maxExportBatchSize: 512,
      onDropped: (spans) => opts.onExportError?.(new Error(`dropped ${spans} spans: the export queue (${maxQueueSize} spans) was full`)),
    },
  );
  const provider = new NodeTracerProvider({
    sampler: new base.ParentBasedSampler({ root }),
    resource: resourceFromAttributes({
      'service.name': 'apiserver',
      'service.version': opts.serviceVersion,
      'service.instance.id': opts.instanceId,
    }),
    spanProcessors: [processor],
  });
  const propagator = new W3CTraceContextPropagator();
  const tracer = provider.getTracer('plat.io/apiserver', opts.serviceVersion);
  return {
    enabled: true,
    samplesRoots: rate !== undefined && rate > 0,
    tracer,
    extract: (headers) => propagator.extract(context.active(), headers, headerGetter),
    inject: (ctx, headers) =>
      propagator.inject(ctx, headers, {
        set: (carrier: Record<string, string>, key: string, value: string) => {
          carrier[key] = value;
        },
      }),
    // Export failures are reported through onExportError by the exporter wrapper above and never
    // reach callers: a collector outage must not fail requests or shutdown.
    forceFlush: () => provider.forceFlush().catch(() => undefined),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}

