#!/usr/bin/env node
// Benchmark: @plat/x509 validateTrustBundle against node's native X509Certificate parsing.
//
//   npx nx run x509:build && node tools/bench/x509/bench.mjs [--rounds N] [--json]
//
// For bundles of 1, 10 and 100 CA certificates (generated here with the package's dev PKI) it
// times our full ClusterTrustBundle validation of the PEM text (PEM scan, base64, DER checks,
// X.509 parse, CA check, duplicate detection) and, in the same process and interleaved round by
// round, `new crypto.X509Certificate(der).ca` for the same certificates from pre-decoded DER
// (which favours the baseline). It prints certificates/second for both and their ratio
// (ours / native; the target is >= 0.25), as the median over the rounds.
import { X509Certificate } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const x509 = await import(path.join(root, 'packages/x509/dist/index.js')).catch((error) => {
  console.error('cannot load packages/x509/dist/index.js; build first: npx nx run x509:build');
  console.error(String(error));
  process.exit(2);
});

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) > 0 && args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 7;
const json = args.includes('--json');
const target = 0.25;
const sizes = [1, 10, 100];
// Each timed slice validates about this many certificates, so small bundles loop more.
const certsPerSlice = 2000;

const cas = [];
for (let i = 0; i < Math.max(...sizes); i++) cas.push(await x509.createCertificateAuthority({ commonName: `bench-ca-${i}` }));
const ders = cas.map((ca) => new X509Certificate(ca.certPem).raw);

function timeSlice(fn, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const results = [];
for (const size of sizes) {
  const bundle = cas.slice(0, size).map((ca) => ca.certPem).join('');
  const bundleDers = ders.slice(0, size);
  const findings = x509.validateTrustBundle(bundle);
  if (findings.length !== 0) throw new Error(`benchmark bundle is invalid: ${JSON.stringify(findings)}`);
  const ours = () => {
    if (x509.validateTrustBundle(bundle).length !== 0) throw new Error('unexpected findings');
  };
  const native = () => {
    for (const der of bundleDers) if (!new X509Certificate(der).ca) throw new Error('not a CA');
  };
  const iterations = Math.max(1, Math.round(certsPerSlice / size));
  timeSlice(ours, iterations); // warm-up
  timeSlice(native, iterations);
  const oursRates = [];
  const nativeRates = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const a = (iterations * size) / timeSlice(ours, iterations);
    const b = (iterations * size) / timeSlice(native, iterations);
    oursRates.push(a);
    nativeRates.push(b);
    ratios.push(a / b);
  }
  results.push({
    certificates: size,
    bundleBytes: Buffer.byteLength(bundle),
    oursCertsPerSecond: Math.round(median(oursRates)),
    nativeCertsPerSecond: Math.round(median(nativeRates)),
    ratio: Number(median(ratios).toFixed(3)),
  });
}

const pass = results.every((r) => r.ratio >= target);
if (json) {
  console.log(JSON.stringify({ node: process.version, rounds, target, pass, results }, null, 2));
} else {
  console.log(`@plat/x509 validateTrustBundle vs crypto.X509Certificate (node ${process.version}, median of ${rounds} rounds)`);
  console.log('certs | bundle bytes | ours certs/s | native certs/s | ratio');
  for (const r of results) {
    console.log(
      `${String(r.certificates).padStart(5)} | ${String(r.bundleBytes).padStart(12)} | ${String(r.oursCertsPerSecond).padStart(12)} | ${String(r.nativeCertsPerSecond).padStart(14)} | ${r.ratio.toFixed(3)}`,
    );
  }
  console.log(`target ratio >= ${target}: ${pass ? 'met' : 'NOT met'}`);
}
process.exitCode = pass ? 0 : 1;
