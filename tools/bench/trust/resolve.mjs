#!/usr/bin/env node
// resolveTrustAnchors over a signer's 100 bundles of 50 anchors against the plain LIST of the same
// bundles (issue 21).
//
//   node tools/bench/trust/resolve.mjs [--rounds 5] [--calls 10] [--bundles 100] [--anchors 50] [--backend sqlite|memory] [--json]
//
// Starts the bundled apiserver (tools/bench/lib's harness; SQLite backend unless --backend memory)
// and creates --bundles ClusterTrustBundles of the signer example.com/bench-resolve, each with
// --anchors distinct CA certificates (5,000 in all, about 3.6 MB of PEM). In this process, on one
// RestClient (@plat/client, the admin's kubeconfig):
//   resolve: resolveTrustAnchors(client, { signerName, labelSelector: {} }): LIST, decode, dedupe,
//            sort, canonical PEM and digest, the anchors' facts;
//   list:    client.request() of the LIST resolve sends (fieldSelector=spec.signerName=..., limit
//            500), JSON decoded: what any client pays to read the same bundles.
// Each round makes --calls calls of each, alternating which goes first, after a warm-up; the
// round's ratio is the median resolve time over the median list time. The very first resolve of
// the process (X.509 facts not yet cached, as in `clientctl trust resolve`) is printed apart.
// Prints the ratio and both times per round and their median [min–max]. Target: ratio <= 2.
import os from 'node:os';
import { bundleName, collection, formatRange, loadAverage, loadTrustPackages, makeCertificates, median, overRounds, runMain, startServer, trustBenchFlags, writeBundle } from './common.mjs';

const { flag, rounds, backend, asJson, log } = trustBenchFlags();
const calls = Number(flag('calls', '10'));
const bundleCount = Number(flag('bundles', '100'));
const anchorsPerBundle = Number(flag('anchors', '50'));
const signerName = 'example.com/bench-resolve';

async function main() {
  const trust = await loadTrustPackages();
  const server = await startServer({ backend });
  let client;
  try {
    log(`making ${bundleCount * anchorsPerBundle} CA certificates...`);
    const certs = await makeCertificates(trust.x509, bundleCount * anchorsPerBundle, 'bench-resolve');
    log(`creating ${bundleCount} bundles of ${anchorsPerBundle}...`);
    for (let b = 0; b < bundleCount; b += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, bundleCount - b) }, (_, j) => {
          const i = b + j;
          const trustBundle = certs.slice(i * anchorsPerBundle, (i + 1) * anchorsPerBundle).join('');
          return writeBundle(server, { name: bundleName(signerName, `b${String(i).padStart(3, '0')}`), signerName, trustBundle, create: true });
        }),
      );
    }
    client = new trust.RestClient(trust.resolveRestConfig(trust.loadKubeConfig({ explicitPath: server.kubeconfig })));
    const selection = { signerName, labelSelector: {} };
    // The query resolveTrustAnchors sends for this selection (`{}` adds no labelSelector).
    const query = { fieldSelector: `spec.signerName=${signerName}`, limit: trust.listChunkSize };
    const resolve = async () => {
      const t = performance.now();
      const anchors = await trust.resolveTrustAnchors(client, selection);
      const ms = performance.now() - t;
      if (anchors.anchors.length !== bundleCount * anchorsPerBundle || anchors.sources.length !== bundleCount) throw new Error(`resolve: ${anchors.anchors.length} anchors from ${anchors.sources.length} bundles`);
      return ms;
    };
    const list = async () => {
      const t = performance.now();
      const res = await client.request({ path: collection, query });
      const ms = performance.now() - t;
      if (res.body.items.length !== bundleCount) throw new Error(`list: ${res.body.items.length} items`);
      return ms;
    };
    // The first resolve of the process parses every certificate; later ones find their facts cached.
    const firstResolveMs = Number((await resolve()).toFixed(1));
    const firstListMs = Number((await list()).toFixed(1));
    log(`first calls: resolve ${firstResolveMs} ms, list ${firstListMs} ms`);
    for (let i = 0; i < 3; i++) {
      await list();
      await resolve();
    }

    const perRound = [];
    for (let r = 0; r < rounds; r++) {
      const times = { resolve: [], list: [] };
      for (let c = 0; c < calls; c++) {
        const order = (c + r) % 2 ? ['resolve', 'list'] : ['list', 'resolve'];
        for (const name of order) times[name].push(await (name === 'resolve' ? resolve : list)());
      }
      const round = { resolveMs: Number(median(times.resolve).toFixed(1)), listMs: Number(median(times.list).toFixed(1)) };
      round.ratio = Number((round.resolveMs / round.listMs).toFixed(3));
      perRound.push(round);
      log(`round ${r + 1}/${rounds}: resolve ${round.resolveMs} ms, list ${round.listMs} ms, ratio ${round.ratio} (load average ${loadAverage().join(' ')})`);
    }

    const summary = { ratio: overRounds(perRound.map((x) => x.ratio)), resolveMs: overRounds(perRound.map((x) => x.resolveMs)), listMs: overRounds(perRound.map((x) => x.listMs)) };
    const target = { measure: 'ratio', value: summary.ratio.median, target: '<= 2', ok: perRound.filter((x) => x.ratio <= 2).length, of: rounds };
    const report = { benchmark: 'trust resolve', backend, bundles: bundleCount, anchorsPerBundle, calls, rounds, node: process.version, cpus: os.cpus().length, loadAverage: loadAverage(), firstResolveMs, firstListMs, perRound, summary, target };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`resolveTrustAnchors vs LIST: ${bundleCount} bundles x ${anchorsPerBundle} anchors, ${calls} calls each per round, ${rounds} rounds (${backend}, node ${process.version})`);
      console.log(`ratio ${formatRange(summary.ratio, 2)}   resolve ${formatRange(summary.resolveMs)} ms   list ${formatRange(summary.listMs)} ms   (median [min–max] over rounds)`);
      console.log(`first resolve of the process (facts not cached): ${firstResolveMs} ms (first list: ${firstListMs} ms)`);
      console.log(`load average ${report.loadAverage.join(' ')} on ${report.cpus} CPUs`);
      console.log(`${target.ok === rounds ? 'PASS' : 'FAIL'} ratio <= 2 in ${target.ok} of ${rounds} rounds`);
    }
  } finally {
    await client?.close();
    await server.stop();
  }
}

runMain(main);
