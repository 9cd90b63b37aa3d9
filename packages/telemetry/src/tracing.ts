import { context, trace, type Context, type Tracer } from '@opentelemetry/api';
import type { tracing } from '@opentelemetry/sdk-node';
import { otlpExporterUrl, type TracingSpec } from './tracing-config.js';

export interface TracingOptions {
  serviceVersion: string;
  instanceId: string;
  /** Export batching delay (the BatchSpanProcessor's scheduledDelayMillis, 5 s by default); tests shorten it. */
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
 * Builds a tracer provider from a TracingConfiguration with @opentelemetry/sdk-node's tracing
 * SDK: ParentBased(TraceIdRatioBased(rate / 1e6)) when samplingRatePerMillion is set,
 * ParentBased(AlwaysOff) when it is not (as the spec says), a BatchSpanProcessor and the OTLP
 * gRPC exporter. The SDK is imported only here, so a server without tracing never loads it.
 * Nothing is registered globally (no global tracer provider, context manager or propagator):
 * each server of a process keeps its own.
 */
export async function createTracing(spec: TracingSpec, opts: TracingOptions): Promise<Tracing> {
  const [{ tracing: sdk, core, resources }, { OTLPTraceExporter }, grpc] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-grpc'),
    import('@grpc/grpc-js'),
  ]);
  const rate = spec.samplingRatePerMillion;
  const root = rate === undefined ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(rate / 1_000_000);
  // Insecure, as the spec says for `endpoint`; given explicitly, since the exporter would pick TLS
  // for a unix socket.
  const exporter = new OTLPTraceExporter({ url: otlpExporterUrl(spec.endpoint), credentials: grpc.credentials.createInsecure() });
  // Failures reach onExportError here. The processor reports them once more to OpenTelemetry's
  // global error handler (its diag logger, silent unless set), and forceFlush/shutdown swallow
  // them below: a collector outage never fails requests or shutdown.
  const reporting: tracing.SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        if (result.code !== core.ExportResultCode.SUCCESS) opts.onExportError?.(result.error ?? new Error('exporting spans failed'));
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
  };
  const provider = new sdk.BasicTracerProvider({
    sampler: new sdk.ParentBasedSampler({ root }),
    resource: resources.resourceFromAttributes({
      'service.name': 'apiserver',
      'service.version': opts.serviceVersion,
      'service.instance.id': opts.instanceId,
    }),
    // The SDK's defaults otherwise: batches of 512 spans, 2,048 queued at most, one export at a time.
    spanProcessors: [new sdk.BatchSpanProcessor(reporting, opts.exportDelayMs === undefined ? {} : { scheduledDelayMillis: opts.exportDelayMs })],
  });
  const propagator = new core.W3CTraceContextPropagator();
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
    forceFlush: () => provider.forceFlush().catch(() => undefined),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
