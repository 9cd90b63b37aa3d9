#!/usr/bin/env node
// Fan-out of one trust bundle change to many watchTrustAnchors consumers in one process (issue 21).
//
//   node tools/bench/trust/fanout.mjs [--rounds 5] [--consumers 1000] [--clients 1] [--backend sqlite|memory] [--json]
//
// Starts the bundled apiserver (tools/bench/lib's harness; SQLite backend unless --backend
// memory) with its default limits. The consumers share one RestClient (--clients N spreads them
// over N), as the consumers of one service would. Its undici Agent runs one request at a time on
// each connection, HTTP/2 included (undici's `pipelining` default of 1), so every watch holds a
// TLS connection of its own: about 1,000 connections to the server, and the server's 100 streams
// per HTTP/2 connection (--http2-max-streams-per-connection) never bind. The in-flight limits
// (--max-requests-inflight 400) do not apply either: watches are exempt, and the consumers' first
// LISTs run as the admin (system:masters, exempt as in Kubernetes); they start in batches of 100
// anyway. One AbortSignal stops every consumer, as in a service shutting down: Node warns past 10
// listeners on a signal, so the script raises that limit and prints the count (one per consumer,
// the same after the rounds: nothing accumulates). The signer has two bundles; the consumers follow it with
// `{ signerName, labelSelector: {} }` (all of its bundles). Each round changes one bundle's
// trustBundle (merge PATCH, a new CA certificate) and takes, for every consumer, the time from
// the moment the server's 200 arrived here to its onChange with the new digest (performance.now()
// in onChange). Consumers and timing share one event loop, as in a service with many consumers:
// the figure includes the decoding and canonicalisation of 1,000 copies of the event.
// Prints per round p50/p99/max over the consumers (max: when the last one saw it) and their
// median [min–max] over the rounds. Target: p99 < 2 s.
import { getEventListeners, setMaxListeners } from 'node:events';
import os from 'node:os';
import { bundleName, distribution, formatRange, loadAverage, loadTrustPackages, makeCertificates, overRounds, runMain, startServer, trustBenchFlags, waitFor, writeBundle } from './common.mjs';

const { flag, rounds, backend, asJson, log } = trustBenchFlags();
const consumerCount = Number(flag('consumers', '1000'));
const clientCount = Number(flag('clients', '1'));
const signerName = 'example.com/bench-fanout';
const staticName = bundleName(signerName, 'static');
const rotatingName = bundleName(signerName, 'rotating');

async function main() {
  const trust = await loadTrustPackages();
  const server = await startServer({ backend, args: [] });
  // One signal stops every consumer, as a service shutting down would; each open watch listens on it.
  const stop = new AbortController();
  setMaxListeners(4 * consumerCount, stop.signal);
  const clients = [];
  try {
    const [staticCa, firstCa] = await makeCertificates(trust.x509, 2, 'bench-fanout-static');
    await writeBundle(server, { name: staticName, signerName, trustBundle: staticCa, create: true });
    await writeBundle(server, { name: rotatingName, signerName, trustBundle: firstCa, create: true });
    const config = trust.resolveRestConfig(trust.loadKubeConfig({ explicitPath: server.kubeconfig }));
    for (let c = 0; c < clientCount; c++) clients.push(new trust.RestClient(config));

    // seen[i]: when consumer i's onChange saw each digest.
    const seen = Array.from({ length: consumerCount }, () => new Map());
    const failures = [];
    const selection = { signerName, labelSelector: {} };
    const startConsumer = (i) =>
      trust
        .watchTrustAnchors(clients[i % clientCount], selection, {
          signal: stop.signal,
          onChange: (anchors) => {
            seen[i].set(anchors.digest, performance.now());
          },
          onError: (err) => failures.push(`consumer ${i}: ${err.message}`),
        })
        .catch((err) => failures.push(`consumer ${i} ended: ${err.message}`));
    const expected = (pems) => trust.x509.canonicalTrustBundle(pems).digest;
    const allSaw = (digest) => seen.every((m) => m.has(digest));
    let digest = expected([staticCa, firstCa]);
    log(`starting ${consumerCount} consumers on ${clientCount} RestClient(s)...`);
    const started = performance.now();
    for (let i = 0; i < consumerCount; i += 100) {
      for (let j = i; j < Math.min(consumerCount, i + 100); j++) void startConsumer(j);
      await waitFor(`consumers ${i}-${i + 99} to see the first anchors`, () => seen.slice(i, i + 100).every((m) => m.has(digest)), 60_000);
    }
    log(`  all listed in ${Math.round(performance.now() - started)} ms; abort listeners on the shared signal: ${getEventListeners(stop.signal, 'abort').length}`);
    // Their watches are open once a change reaches them all: one warm-up change, not measured.
    const warmCa = (await makeCertificates(trust.x509, 1, 'bench-fanout-warm'))[0];
    await writeBundle(server, { name: rotatingName, signerName, trustBundle: warmCa });
    digest = expected([staticCa, warmCa]);
    await waitFor('the warm-up change to reach every consumer', () => allSaw(digest), 60_000);

    const perRound = [];
    const cas = await makeCertificates(trust.x509, rounds, 'bench-fanout');
    for (let r = 0; r < rounds; r++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      digest = expected([staticCa, cas[r]]);
      const { answeredAt } = await writeBundle(server, { name: rotatingName, signerName, trustBundle: cas[r] });
      await waitFor(`round ${r + 1}'s change to reach every consumer`, () => allSaw(digest), 60_000);
      const d = distribution(seen.map((m) => m.get(digest) - answeredAt));
      perRound.push(d);
      log(`round ${r + 1}/${rounds}: p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms (load average ${loadAverage().join(' ')})`);
    }
    log(`abort listeners on the shared signal: ${getEventListeners(stop.signal, 'abort').length}`);
    if (failures.length) throw new Error(`consumers failed:\n${failures.slice(0, 10).join('\n')}`);

    const summary = { p50: overRounds(perRound.map((d) => d.p50)), p99: overRounds(perRound.map((d) => d.p99)), max: overRounds(perRound.map((d) => d.max)) };
    const target = { measure: 'p99', value: summary.p99.median, target: '< 2000 ms', ok: perRound.filter((d) => d.p99 < 2000).length, of: rounds };
    const report = { benchmark: 'trust fan-out', backend, consumers: consumerCount, clients: clientCount, rounds, node: process.version, cpus: os.cpus().length, loadAverage: loadAverage(), perRound, summary, target };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`watchTrustAnchors fan-out: server's 200 on a PATCH -> onChange of each of ${consumerCount} consumers (${clientCount} RestClient), ${rounds} rounds (${backend}, node ${process.version})`);
      console.log(`p50 ${formatRange(summary.p50)} ms   p99 ${formatRange(summary.p99)} ms   max ${formatRange(summary.max)} ms   (median [min–max] over rounds)`);
      console.log(`load average ${report.loadAverage.join(' ')} on ${report.cpus} CPUs`);
      console.log(`${target.ok === rounds ? 'PASS' : 'FAIL'} p99 < 2 s in ${target.ok} of ${rounds} rounds`);
    }
  } finally {
    stop.abort();
    await Promise.all(clients.map((c) => c.close()));
    await server.stop();
  }
}

runMain(main);
