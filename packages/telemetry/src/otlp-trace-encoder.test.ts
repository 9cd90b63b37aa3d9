import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { encodeTraceRequest, OtlpTraceBatch } from './otlp-trace-encoder.js';

/** Real SDK spans from a provider with the given resource, collected in memory. */
function provider(attributes: Attributes, opts: { schemaUrl?: string; attributeCountLimit?: number; eventCountLimit?: number; linkCountLimit?: number } = {}) {
  const exporter = new InMemorySpanExporter();
  const p = new BasicTracerProvider({
    sampler: new AlwaysOnSampler(),
    resource: resourceFromAttributes(attributes, opts.schemaUrl ? { schemaUrl: opts.schemaUrl } : undefined),
    spanLimits: { attributeCountLimit: opts.attributeCountLimit, eventCountLimit: opts.eventCountLimit, linkCountLimit: opts.linkCountLimit },
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { tracer: (name: string, version?: string, schemaUrl?: string) => p.getTracer(name, version, { schemaUrl }), spans: () => exporter.getFinishedSpans() };
}

/** What the library (the serializer inside OTLPTraceExporter) makes of the same spans. */
const libraryBytes = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
const ourBytes = (spans: ReadableSpan[]) => Buffer.from(encodeTraceRequest(spans));

const remoteParent = (traceState?: string): Context =>
  trace.setSpanContext(context.active(), {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: traceState ? new TraceState(traceState) : undefined,
  });

describe('encodeTraceRequest', () => {
  it('writes the bytes of ProtobufTraceSerializer for spans with every kind of field', () => {
    const { tracer, spans } = provider({ 'service.name': 'apiserver', 'service.version': '0.1.0', 'service.instance.id': 'host-1', 'host.cpus': 2 });
    const t = tracer('plat.io/apiserver', '0.1.0');
    const root = t.startSpan('GET /apis/certificates.plat.io/v1alpha1/clustertrustbundles/{name}', {
      kind: SpanKind.SERVER,
      attributes: {
        ascii: 'GET',
        empty: '',
        unicode: 'ünïcødé ✓ 🚀',
        long: 'x'.repeat(300),
        longUnicode: 'é'.repeat(200),
        yes: true,
        no: false,
        zero: 0,
        small: 127,
        twoBytes: 128,
        int31: 2 ** 31,
        int33: 2 ** 32 + 5,
        negative: -1,
        bigNegative: -(2 ** 40),
        maxSafe: Number.MAX_SAFE_INTEGER,
        double: 3.25,
        negativeDouble: -0.5,
        infinity: Infinity,
        strings: ['a', 'ü', ''],
        numbers: [1, 2.5, -3],
        bools: [true, false],
        withNull: ['a', null, 'b'],
      },
    });
    const ctx = trace.setSpan(context.active(), root);
    const child = t.startSpan('storage.get', { attributes: { 'storage.type': 'clustertrustbundles.certificates.plat.io' } }, ctx);
    child.addEvent('cache miss');
    child.addEvent('retry', { attempt: 2, reason: 'conflict' }, [1_700_000_000, 123_456_789]);
    child.recordException(new Error('etcd: request timed out'));
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'etcd: request timed out' });
    child.end();
    const linked = t.startSpan(
      'linked',
      {
        kind: SpanKind.CLIENT,
        links: [
          { context: root.spanContext() },
          { context: { traceId: '1af7651916cd43dd8448eb211c80319c', spanId: 'c7ad6b7169203331', traceFlags: TraceFlags.NONE, isRemote: true, traceState: new TraceState('vendor=abc') }, attributes: { why: 'batch' } },
        ],
      },
      ctx,
    );
    linked.setStatus({ code: SpanStatusCode.OK });
    linked.end();
    // A remote parent with trace state: parent span ID, trace_state and the "is remote" flag bits.
    const remote = t.startSpan('from webhook', { kind: SpanKind.PRODUCER }, remoteParent('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'));
    remote.end([1_700_000_000, 999_999_999]);
    const consumer = t.startSpan('consumer', { kind: SpanKind.CONSUMER, startTime: [4_000_000_000, 1] });
    consumer.end([4_000_000_001, 0]);
    root.setAttribute('http.response.status_code', 200);
    root.end();
    const finished = spans();
    expect(finished).toHaveLength(5);
    expect(ourBytes(finished).equals(libraryBytes(finished))).toBe(true);
  });

  it('counts dropped attributes, events and links as the library does', () => {
    const { tracer, spans } = provider({ 'service.name': 'apiserver' }, { attributeCountLimit: 2, eventCountLimit: 1, linkCountLimit: 1 });
    const span = tracer('limits').startSpan('limited', {
      attributes: { a: 1, b: 2, c: 3, d: 4 },
      links: [{ context: { traceId: '1af7651916cd43dd8448eb211c80319c', spanId: 'c7ad6b7169203331', traceFlags: 1 } }, { context: { traceId: '2af7651916cd43dd8448eb211c80319c', spanId: 'd7ad6b7169203331', traceFlags: 1 } }],
    });
    span.addEvent('one', { x: 1, y: 2, z: 3 });
    span.addEvent('two');
    span.end();
    const [s] = spans();
    expect(s!.droppedAttributesCount).toBe(2);
    expect(s!.droppedEventsCount).toBe(1);
    expect(s!.droppedLinksCount).toBe(1);
    expect(ourBytes(spans()).equals(libraryBytes(spans()))).toBe(true);
  });

  it('groups spans by resource and then by scope, in first-seen order, with schema URLs', () => {
    const a = provider({ 'service.name': 'a' }, { schemaUrl: 'https://opentelemetry.io/schemas/1.26.0' });
    const b = provider({ 'service.name': 'b' });
    const spans: ReadableSpan[] = [];
    for (const [p, scope, version, schema] of [
      [a, 'one', '1.0', undefined],
      [b, 'one', undefined, 'https://opentelemetry.io/schemas/1.24.0'],
      [a, 'two', '2.0', undefined],
      [a, 'one', '1.0', undefined],
      [b, 'one', undefined, 'https://opentelemetry.io/schemas/1.24.0'],
    ] as const) {
      p.tracer(scope, version, schema).startSpan(`${scope} span`).end();
    }
    spans.push(...a.spans().slice(0, 1), ...b.spans().slice(0, 1), ...a.spans().slice(1), ...b.spans().slice(1));
    expect(ourBytes(spans).equals(libraryBytes(spans))).toBe(true);
  });

  it('moves a message when its length needs another number of bytes than reserved', () => {
    const { tracer, spans } = provider({ 'service.name': 'apiserver' });
    const t = tracer('sizes');
    // A span under 128 bytes (one length byte), one over 16 KiB (three), a batch over 2 MiB (four).
    t.startSpan('s').end();
    t.startSpan('big', { attributes: { blob: 'y'.repeat(20_000) } }).end();
    const small = spans();
    expect(ourBytes(small).equals(libraryBytes(small))).toBe(true);
    for (let i = 0; i < 120; i++) t.startSpan(`bulk ${i}`, { attributes: { blob: 'z'.repeat(20_000) } }).end();
    const large = spans();
    const bytes = ourBytes(large);
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(bytes.equals(libraryBytes(large))).toBe(true);
  });

  it('encodes nothing for no spans', () => {
    expect(ourBytes([]).equals(libraryBytes([]))).toBe(true);
  });
});

describe('OtlpTraceBatch', () => {
  it('encodes spans added one at a time as the request of the whole list', () => {
    const a = provider({ 'service.name': 'a' });
    const b = provider({ 'service.name': 'b' });
    for (let i = 0; i < 10; i++) (i % 3 ? a : b).tracer(i % 2 ? 'odd' : 'even').startSpan(`span ${i}`, { attributes: { i } }).end();
    const all = [...a.spans(), ...b.spans()].sort((x, y) => Number(x.attributes['i']) - Number(y.attributes['i']));
    // A size hint of 0 makes every scope's buffer grow from nothing on the way.
    const batch = new OtlpTraceBatch(0);
    for (const s of all) batch.add(s);
    expect(batch.count).toBe(10);
    expect(Buffer.from(batch.encode()).equals(libraryBytes(all))).toBe(true);
  });
});
