import { Registry } from 'prom-client';
import { FastCounter, FastGauge, FastHistogram } from './fast-metrics.js';

describe('fast metrics in a prom-client Registry', () => {
  it('prints counters, gauges and histograms in the Prometheus text format', async () => {
    const registry = new Registry();
    const counter = new FastCounter({ name: 'test_requests_total', help: 'Requests.', labelNames: ['verb', 'code'], registry });
    const gauge = new FastGauge({ name: 'test_inflight', help: 'In flight.', labelNames: ['kind'], registry });
    const histogram = new FastHistogram({ name: 'test_duration_seconds', help: 'Latency.', labelNames: ['verb'], buckets: [0.1, 0.01, 1], registry });
    const get200 = counter.labels({ verb: 'GET', code: 200 });
    get200.inc();
    get200.inc(2);
    counter.labels('POST', '201').inc();
    gauge.labels('readOnly').set(5);
    gauge.labels('readOnly').dec();
    gauge.labels({ kind: 'mutating' }).inc();
    const h = histogram.labels('GET');
    h.observe(0.005);
    h.observe(0.05);
    h.observe(0.05);
    h.observe(7);
    h.observe(Number.NaN); // ignored
    const text = await registry.metrics();
    expect(text).toContain('# HELP test_requests_total Requests.\n# TYPE test_requests_total counter');
    expect(text).toContain('test_requests_total{verb="GET",code="200"} 3');
    expect(text).toContain('test_requests_total{verb="POST",code="201"} 1');
    expect(text).toContain('test_inflight{kind="readOnly"} 4');
    expect(text).toContain('test_inflight{kind="mutating"} 1');
    expect(text).toContain('# TYPE test_duration_seconds histogram');
    expect(text).toContain('test_duration_seconds_bucket{le="0.01",verb="GET"} 1');
    expect(text).toContain('test_duration_seconds_bucket{le="0.1",verb="GET"} 3');
    expect(text).toContain('test_duration_seconds_bucket{le="1",verb="GET"} 3');
    expect(text).toContain('test_duration_seconds_bucket{le="+Inf",verb="GET"} 4');
    expect(text).toContain('test_duration_seconds_sum{verb="GET"} 7.105');
    expect(text).toContain('test_duration_seconds_count{verb="GET"} 4');
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('test_requests_total{');
  });

  it('times with startTimer and refuses bad labels and decreasing counters', () => {
    const counter = new FastCounter({ name: 'c_total', help: 'c', labelNames: ['a'] });
    expect(() => counter.labels({ b: 'x' })).toThrow('Added label "b" is not included in initial labelset');
    expect(() => counter.labels('x', 'y')).toThrow('expected 1 label values, got 2');
    expect(() => counter.labels('x').inc(-1)).toThrow('It is not possible to decrease a counter');
    expect(() => new FastGauge({ name: 'g', help: 'g', labelNames: ['bad-name'] })).toThrow('Invalid label name');
    expect(() => new FastHistogram({ name: 'h', help: 'h', labelNames: ['le'], buckets: [1] })).toThrow('le is a reserved label');
    const h = new FastHistogram({ name: 'h', help: 'h', labelNames: [], buckets: [1] });
    const seconds = h.labels().startTimer()();
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(seconds).toBeLessThan(1);
  });
});
