import type { Metric, Registry } from 'prom-client';

/**
 * Counters, gauges and histograms for the request path, exposed through a prom-client Registry
 * (same text format, same `# HELP`/`# TYPE` lines, `registry.metrics()` and `resetMetrics()` work).
 *
 * Why not prom-client's own classes: they validate and hash the label set on every `inc`, `set`
 * and `observe`, even on a child returned by `labels()`, which showed as several percent of a GET
 * in CPU profiles. Here `labels()` does that work once and returns a child that holds its numbers
 * directly; callers keep the child for their hot paths.
 */

type LabelInput = Record<string, string | number> | (string | number)[];

interface Series {
  labels: Record<string, string>;
}

interface ExportedValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** `S` is the stored series, `C` what callers get of it from `labels()`. */
abstract class LabeledMetric<S extends Series & C, C> {
  readonly aggregator = 'sum';
  private readonly series = new Map<string, S>();

  protected constructor(
    // Mutable: a Registry with the OpenMetrics content type renames counters.
    public name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    readonly labelNames: readonly string[],
    registry: Registry | undefined,
  ) {
    for (const l of labelNames) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(l) || l.startsWith('__')) throw new TypeError(`Invalid label name: ${l}`);
    }
    registry?.registerMetric(this as unknown as Metric);
  }

  protected abstract newSeries(labels: Record<string, string>): S;
  protected abstract exportSeries(s: S, out: ExportedValue[]): void;

  /** The child of these label values: an object by label name, or the values in labelNames order. */
  labels(...input: [Record<string, string | number>] | (string | number)[]): C {
    return this.seriesFor(input.length === 1 && typeof input[0] === 'object' ? input[0] : (input as (string | number)[]));
  }

  private seriesFor(input: LabelInput): S {
    const values = Array.isArray(input) ? input.map(String) : this.labelNames.map((n) => (input[n] === undefined ? '' : String(input[n])));
    if (Array.isArray(input)) {
      if (input.length !== this.labelNames.length) throw new TypeError(`${this.name}: expected ${this.labelNames.length} label values, got ${input.length}`);
    } else {
      for (const k of Object.keys(input)) {
        if (!this.labelNames.includes(k)) throw new TypeError(`Added label "${k}" is not included in initial labelset: ${JSON.stringify(this.labelNames)}`);
      }
    }
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      s = this.newSeries(labels);
      this.series.set(key, s);
    }
    return s;
  }

  /** What prom-client's Registry prints: one value per series (histograms: buckets, sum, count). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ExportedValue[] }> {
    const values: ExportedValue[] = [];
    for (const s of this.series.values()) this.exportSeries(s, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}

export interface CounterChild {
  inc(by?: number): void;
}

interface CounterSeries extends Series, CounterChild {
  value: number;
}

interface MetricOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry?: Registry;
}

/** A metric whose series each hold one number (counters and gauges). */
abstract class SingleValueMetric<S extends Series & C & { value: number }, C> extends LabeledMetric<S, C> {
  protected constructor(opts: MetricOptions, type: 'counter' | 'gauge') {
    super(opts.name, opts.help, type, opts.labelNames, opts.registry);
  }

  protected exportSeries(s: S, out: ExportedValue[]): void {
    out.push({ value: s.value, labels: s.labels });
  }
}

export class FastCounter extends SingleValueMetric<CounterSeries, CounterChild> {
  private readonly collect: (() => void) | undefined;

  /** `collect` runs before each export: a counter kept elsewhere is brought up to date there. */
  constructor(opts: MetricOptions & { collect?: (counter: FastCounter) => void }) {
    super(opts, 'counter');
    const collect = opts.collect;
    this.collect = collect && (() => collect(this));
  }

  override async get(): ReturnType<SingleValueMetric<CounterSeries, CounterChild>['get']> {
    this.collect?.();
    return super.get();
  }

  protected newSeries(labels: Record<string, string>): CounterSeries {
    const s: CounterSeries = {
      labels,
      value: 0,
      inc(by = 1) {
        if (!(by >= 0) || !Number.isFinite(by)) throw new TypeError('It is not possible to decrease a counter');
        s.value += by;
      },
    };
    return s;
  }
}

export interface GaugeChild {
  inc(by?: number): void;
  dec(by?: number): void;
  set(value: number): void;
}

interface GaugeSeries extends Series, GaugeChild {
  value: number;
}

export class FastGauge extends SingleValueMetric<GaugeSeries, GaugeChild> {
  private readonly collect: (() => void) | undefined;

  /** `collect` runs before each export: a gauge that reads its value from elsewhere sets it there. */
  constructor(opts: MetricOptions & { collect?: (gauge: FastGauge) => void }) {
    super(opts, 'gauge');
    const collect = opts.collect;
    this.collect = collect && (() => collect(this));
  }

  override async get(): ReturnType<SingleValueMetric<GaugeSeries, GaugeChild>['get']> {
    this.collect?.();
    return super.get();
  }

  protected newSeries(labels: Record<string, string>): GaugeSeries {
    const s: GaugeSeries = {
      labels,
      value: 0,
      inc(by = 1) {
        s.value += by;
      },
      dec(by = 1) {
        s.value -= by;
      },
      set(value) {
        s.value = value;
      },
    };
    return s;
  }
}

export interface HistogramChild {
  observe(seconds: number): void;
  /** Starts a timer; calling the result observes the seconds since (and returns them). */
  startTimer(): () => number;
}

interface HistogramSeries extends Series, HistogramChild {
  /** Per-bucket counts (not cumulative); the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class FastHistogram extends LabeledMetric<HistogramSeries, HistogramChild> {
  private readonly buckets: readonly number[];

  constructor(opts: MetricOptions & { buckets: readonly number[] }) {
    if (opts.labelNames.includes('le')) throw new TypeError('le is a reserved label keyword');
    super(opts.name, opts.help, 'histogram', opts.labelNames, opts.registry);
    const sorted = [...opts.buckets].sort((a, b) => a - b);
    if (sorted.some((b, i) => !Number.isFinite(b) || (i > 0 && b === sorted[i - 1]))) throw new TypeError(`${opts.name}: buckets must be distinct finite numbers`);
    this.buckets = sorted;
  }

  protected newSeries(labels: Record<string, string>): HistogramSeries {
    const bounds = this.buckets;
    const s: HistogramSeries = {
      labels,
      counts: new Array<number>(bounds.length + 1).fill(0),
      sum: 0,
      count: 0,
      observe(value) {
        if (!Number.isFinite(value)) return;
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        s.counts[i]!++;
        s.sum += value;
        s.count++;
      },
      startTimer() {
        const start = performance.now();
        return () => {
          const seconds = (performance.now() - start) / 1000;
          s.observe(seconds);
          return seconds;
        };
      },
    };
    return s;
  }

  protected exportSeries(s: HistogramSeries, out: ExportedValue[]): void {
    let cumulative = 0;
    this.buckets.forEach((le, i) => {
      cumulative += s.counts[i]!;
      out.push({ value: cumulative, labels: { le, ...s.labels }, metricName: `${this.name}_bucket` });
    });
    out.push({ value: s.count, labels: { le: '+Inf', ...s.labels }, metricName: `${this.name}_bucket` });
    out.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
    out.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
  }
}
