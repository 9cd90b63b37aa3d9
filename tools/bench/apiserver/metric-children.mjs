#!/usr/bin/env node
// CPU of the metric calls one GET makes (in-flight gauge set twice, storage latency timer,
// request counter inc, request latency observe), through label children kept by the caller: with
// prom-client's own Counter/Gauge/Histogram, whose children validate and hash the label set on
// every call, and with packages/server's fast-metrics classes, whose children hold their numbers.
// The end-to-end figure is ab.mjs between two builds; this says where the difference comes from.
//
//   node tools/bench/apiserver/metric-children.mjs [--rounds 7] [--calls 300000]
//
// Prints µs of CPU per request for each, median [min–max] over rounds that alternate the two.
import { importSources } from '../lib/import-sources.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 7);
const calls = arg('calls', 300_000);

const m = await importSources(
  [
    "export { Counter, Gauge, Histogram, Registry } from 'prom-client';",
    "export { FastCounter, FastGauge, FastHistogram } from './packages/server/src/fast-metrics.ts';",
  ].join('\n'),
);

const requestLabels = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
const requestValues = ['GET', 'certificates.plat.io', 'v1alpha1', 'clustertrustbundles', '', 'resource', 'apiserver'];
const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const storageBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One request's calls on children looked up once, as the server keeps them. */
function requestOf(children) {
  const { inflight, storage, total, duration } = children;
  return () => {
    inflight.set(1);
    storage.startTimer()();
    total.inc();
    duration.observe(0.0012);
    inflight.set(0);
  };
}

function promClient() {
  const registers = [new m.Registry()];
  return requestOf({
    inflight: new m.Gauge({ name: 'i', help: 'h', labelNames: ['request_kind'], registers }).labels('readOnly'),
    storage: new m.Histogram({ name: 's', help: 'h', labelNames: ['operation', 'type'], buckets: storageBuckets, registers }).labels('get', 'clustertrustbundles.certificates.plat.io'),
    total: new m.Counter({ name: 't', help: 'h', labelNames: [...requestLabels, 'code'], registers }).labels(...requestValues, '200'),
    duration: new m.Histogram({ name: 'd', help: 'h', labelNames: requestLabels, buckets: latencyBuckets, registers }).labels(...requestValues),
  });
}

function fastMetrics() {
  const registry = new m.Registry();
  return requestOf({
    inflight: new m.FastGauge({ name: 'i', help: 'h', labelNames: ['request_kind'], registry }).labels('readOnly'),
    storage: new m.FastHistogram({ name: 's', help: 'h', labelNames: ['operation', 'type'], buckets: storageBuckets, registry }).labels('get', 'clustertrustbundles.certificates.plat.io'),
    total: new m.FastCounter({ name: 't', help: 'h', labelNames: [...requestLabels, 'code'], registry }).labels(...requestValues, '200'),
    duration: new m.FastHistogram({ name: 'd', help: 'h', labelNames: requestLabels, buckets: latencyBuckets, registry }).labels(...requestValues),
  });
}

function microsPerCall(fn) {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const variants = { 'prom-client children': promClient(), 'fast-metrics children': fastMetrics() };
for (const fn of Object.values(variants)) microsPerCall(fn); // warm up
const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? Object.keys(variants).reverse() : Object.keys(variants);
  for (const k of order) results[k].push(microsPerCall(variants[k]));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [k, xs] of Object.entries(results)) {
  console.log(`${k}: ${median(xs).toFixed(3)} µs per request [${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`);
}
