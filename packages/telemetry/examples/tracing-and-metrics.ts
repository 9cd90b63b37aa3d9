import * as assert from 'node:assert/strict';
import { trace } from '@opentelemetry/api';
import { createMetricsRegistry, createTracing, disabledTracing } from '@plat/telemetry';

// Metrics: one prom-client registry with the process metrics, shared by every package that
// registers collectors (@plat/server, @plat/egress, @plat/auth).
const registry = createMetricsRegistry();
assert.match(await registry.metrics(), /^process_cpu_user_seconds_total /m);

// Tracing from a TracingConfiguration (@plat/config's loadTracingConfiguration): every root
// sampled, exported over OTLP/gRPC. No collector listens here: export failures reach
// onExportError and never the caller.
const errors: Error[] = [];
const tracing = await createTracing(
  { endpoint: '127.0.0.1:4317', samplingRatePerMillion: 1_000_000 },
  { serviceVersion: '0.1.0', instanceId: 'example', onExportError: (err) => errors.push(err) },
);

// A request span under the caller's W3C trace context, and the headers for an outgoing call.
const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
const parent = tracing.extract(incoming);
const span = tracing.tracer.startSpan('GET /apis/certificates.plat.io/v1alpha1/clustertrustbundles', {}, parent);
const outgoing: Record<string, string> = {};
tracing.inject(trace.setSpan(parent, span), outgoing);
assert.match(outgoing.traceparent ?? '', /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
span.end();
await tracing.shutdown(); // flushes; resolves even though the export failed
console.log(`export errors reported: ${errors.length}`);

// Tracing off costs nothing: the OpenTelemetry API's no-op tracer, no SDK loaded.
const off = disabledTracing();
assert.equal(off.enabled, false);
