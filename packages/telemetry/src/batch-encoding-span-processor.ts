/**
 * The SDK's BatchSpanProcessor, with each span encoded to OTLP protobuf when it ends rather
 * than kept as an object until its batch is exported. Same settings and the same behaviour
 * seen from outside: sampled spans only, a batch goes out when it reaches
 * `maxExportBatchSize` or `scheduledDelayMillis` after its first span, one export at a time,
 * spans dropped (and counted) beyond `maxQueueSize`, export calls under suppressed tracing.
 *
 * Why: at full sampling a GET makes five spans, and a span object graph that waits for a batch
 * of 512 survives several scavenges, is promoted, and costs old-generation collections; an
 * encoded span is a few hundred bytes outside the JavaScript heap.
 */
import { context, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OtlpTraceBatch } from './otlp-trace-encoder.js';

/** An ExportTraceServiceRequest ready to send, and how many spans it holds. */
export interface EncodedSpans {
  readonly bytes: Uint8Array;
  readonly spans: number;
}

/** Sends encoded batches (the OTLP gRPC exporter in createTracing). */
export interface EncodedSpanExporter {
  export(batch: EncodedSpans, done: (result: ExportResult) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface BatchEncodingOptions {
  /** Delay from a batch's first span to its export (SDK default 5000). */
  scheduledDelayMillis?: number;
  /** Spans buffered (encoded) at most; more are dropped (SDK default 2048). */
  maxQueueSize?: number;
  /** Spans per export at most (SDK default 512). */
  maxExportBatchSize?: number;
  /** Called with the number of spans dropped because the queue was full, once per export. */
  onDropped?: (spans: number) => void;
}

export class BatchEncodingSpanProcessor implements SpanProcessor {
  readonly #exporter: EncodedSpanExporter;
  readonly #delayMs: number;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  readonly #onDropped: ((spans: number) => void) | undefined;
  #batch = new OtlpTraceBatch();
  /** Sealed batches waiting for the export in flight. */
  readonly #pending: EncodedSpans[] = [];
  /** Spans in #pending and in the export in flight. */
  #queued = 0;
  #exporting = false;
  #dropped = 0;
  #droppedReported = 0;
  #timer: NodeJS.Timeout | undefined;
  #idle: Array<() => void> = [];
  #shutdown: Promise<void> | undefined;

  constructor(exporter: EncodedSpanExporter, opts: BatchEncodingOptions = {}) {
    this.#exporter = exporter;
    this.#delayMs = opts.scheduledDelayMillis ?? 5000;
    this.#maxQueue = opts.maxQueueSize ?? 2048;
    this.#maxBatch = Math.min(opts.maxExportBatchSize ?? 512, this.#maxQueue);
    this.#onDropped = opts.onDropped;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#shutdown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#queued + this.#batch.count >= this.#maxQueue) {
      this.#dropped++;
      return;
    }
    this.#batch.add(span);
    if (this.#batch.count >= this.#maxBatch) this.#seal();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.#seal(), this.#delayMs);
      this.#timer.unref();
    }
  }

  /** Spans dropped so far because the queue was full. */
  get droppedSpans(): number {
    return this.#dropped;
  }

  /** Exports everything ended so far; resolves when no export is left. */
  forceFlush(): Promise<void> {
    this.#seal();
    const idle = this.#exporting ? new Promise<void>((resolve) => this.#idle.push(resolve)) : Promise.resolve();
    return idle.then(() => this.#exporter.forceFlush());
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.forceFlush().then(() => this.#exporter.shutdown());
    return this.#shutdown;
  }

  #seal(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#batch;
    if (batch.count === 0) return;
    const bytes = batch.encode();
    // The next batch starts with room for one like this one.
    this.#batch = new OtlpTraceBatch(bytes.length);
    this.#pending.push({ bytes, spans: batch.count });
    this.#queued += batch.count;
    this.#next();
  }

  #next(): void {
    if (this.#exporting) return;
    const batch = this.#pending.shift();
    if (!batch) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
      return;
    }
    this.#exporting = true;
    if (this.#dropped > this.#droppedReported) {
      this.#onDropped?.(this.#dropped - this.#droppedReported);
      this.#droppedReported = this.#dropped;
    }
    let settled = false;
    const done = (_result: ExportResult) => {
      // An exporter that answers and then throws must not free the queue twice.
      if (settled) return;
      settled = true;
      this.#exporting = false;
      this.#queued -= batch.spans;
      this.#next();
    };
    // The export's own calls (gRPC) must not be traced, as the SDK's processor ensures.
    context.with(suppressTracing(context.active()), () => {
      try {
        this.#exporter.export(batch, done);
      } catch (err) {
        done({ code: ExportResultCode.FAILED, error: err as Error });
      }
    });
  }
}
