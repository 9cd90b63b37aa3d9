export { defaultOtlpEndpoint, otlpExporterUrl, type TracingSpec } from './tracing-config.js';
export { createTracing, disabledTracing, type Tracing, type TracingOptions } from './tracing.js';
export { createMetricsRegistry } from './metrics-registry.js';
