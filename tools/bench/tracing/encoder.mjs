#!/usr/bin/env node
// Cost of encoding spans for OTLP export: @plat/telemetry's encoder against the library's
// ProtobufTraceSerializer (what OTLPTraceExporter uses), on the same batch, in this process.
//
//   node tools/bench/tracing/encoder.mjs [--batches 2000] [--rounds 3]
//
// The batch is 512 real SDK spans shaped like the apiserver's GET at full sampling: per request
// a SERVER span with six attributes (one of them a fresh audit ID) and four children
// (authentication, authorization, authorizer Builtin/builtin, storage.get). Both encoders must
// give the same bytes; the benchmark checks that before timing.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { build } from 'esbuild';
import { benchFlags } from '../lib/apiserver-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { flag } = benchFlags();
const batches = Number(flag('batches', '2000'));
const rounds = Number(flag('rounds', '3'));

// The encoder from source, bundled in memory (a fresh clone has no dist/).
const out = await build({ entryPoints: [path.join(root, 'packages/telemetry/src/otlp-trace-encoder.ts')], bundle: true, write: false, format: 'esm', platform: 'node', external: ['@opentelemetry/*'], logLevel: 'error' });
const { encodeTraceRequest } = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);

const memory = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'apiserver', 'service.version': '0.1.0', 'service.instance.id': 'bench' }),
  spanProcessors: [new SimpleSpanProcessor(memory)],
}).getTracer('plat.io/apiserver', '0.1.0');
const route = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}';
while (memory.getFinishedSpans().length < 512) {
  const span = tracer.startSpan(`GET ${route}`, { kind: SpanKind.SERVER });
  span.setAttributes({ 'http.request.method': 'GET', 'http.route': route, 'user_agent.original': 'autocannon', 'apiserver.verb': 'get', 'apiserver.resource': 'clustertrustbundles', 'apiserver.audit_id': crypto.randomUUID() });
  const ctx = trace.setSpan(context.active(), span);
  tracer.startSpan('authentication', {}, ctx).end();
  tracer.startSpan('authorization', { attributes: { 'authorization.verb': 'get', 'authorization.resource': 'clustertrustbundles' } }, ctx).end();
  tracer.startSpan('authorizer Builtin/builtin', { attributes: { 'authorizer.type': 'Builtin', 'authorizer.name': 'builtin', 'authorization.decision': 'Allow' } }, ctx).end();
  tracer.startSpan('storage.get', { attributes: { 'storage.type': 'clustertrustbundles.certificates.plat.io' } }, ctx).end();
  span.setAttribute('http.response.status_code', 200);
  span.end();
}
const batch = memory.getFinishedSpans().slice(0, 512);
const library = () => ProtobufTraceSerializer.serializeRequest(batch);
const ours = () => encodeTraceRequest(batch);
if (!Buffer.from(ours()).equals(Buffer.from(library()))) throw new Error('the encoders disagree on the batch');

const time = (f) => {
  for (let i = 0; i < 200; i++) f();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batches; i++) f();
  return Number(process.hrtime.bigint() - t0) / 1000 / batches / batch.length;
};
const results = { library: [], ours: [] };
for (let r = 0; r < rounds; r++) {
  results.library.push(time(library));
  results.ours.push(time(ours));
}
const best = (xs) => Math.min(...xs);
console.log('| encoder | µs per span (best of rounds) | ÷ library |');
console.log('|---|---:|---:|');
console.log(`| ProtobufTraceSerializer | ${best(results.library).toFixed(3)} | 1 |`);
console.log(`| @plat/telemetry encodeTraceRequest | ${best(results.ours).toFixed(3)} | ${(best(results.ours) / best(results.library)).toFixed(2)} |`);
console.log(`${batch.length} spans a batch, ${batches} batches a round, ${rounds} rounds, node ${process.version}`);
