#!/usr/bin/env node
// Propagation of a trust bundle change to a file kept by `clientctl trust sync` (issue 21).
//
//   node tools/bench/trust/propagation.mjs [--rounds 5] [--changes 100] [--backend sqlite|memory] [--json]
//
// Bundles apps/apiserver and apps/clientctl as their Nx builds do (tools/e2e/bundle-app.mjs) and
// starts both as a user runs them: the apiserver (SQLite backend unless --backend memory) on a free
// port, and `clientctl trust sync --signer example.com/bench-propagation --to FILE` with the
// server's admin.conf as KUBECONFIG. The signer has two bundles: one that never changes and one
// whose trustBundle this script changes (merge PATCH) --changes times per round, each time with a new CA certificate,
// one change at a time. For each change it takes the time from the moment the server's 200
// arrived here (status line and headers) to the moment FILE was renamed into place. The rename is
// seen with fs.watch on FILE's directory (inotify, IN_MOVED_TO for FILE's name; the temporary
// files' own events are ignored), timed with performance.now() in the callback: this process is
// otherwise idle while it waits, so the resolution is the event loop's wake-up, well under a
// millisecond on an idle machine. After each rename the file must hold the canonical PEM of the
// two bundles (checked against @plat/x509's canonicalTrustBundle). The delay covers the server's
// watch delivery, the watch event's decoding in clientctl, canonicalisation and the atomic write
// (temp file, fsync, rename). A rename seen before the 200 gives a negative delay; it is kept.
// Prints p50/p99/max per round and their median [min–max] over the rounds. Target: p99 < 1 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { bundleApp } from '../../e2e/bundle-app.mjs';
import { bundleName, distribution, formatRange, loadAverage, loadTrustPackages, makeCertificates, overRounds, writeBundle, runMain, startServer, trustBenchFlags, waitFor } from './common.mjs';

const { flag, rounds, backend, asJson, log } = trustBenchFlags();
const changes = Number(flag('changes', '100'));
const signerName = 'example.com/bench-propagation';
const staticName = bundleName(signerName, 'static');
const rotatingName = bundleName(signerName, 'rotating');

async function main() {
  const [{ x509 }, clientctl] = await Promise.all([loadTrustPackages(), bundleApp('clientctl')]);
  const server = await startServer({ backend });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-propagation-'));
  const file = path.join(dir, 'bench-ca.pem');
  let sync;
  let watcher;
  try {
    const [staticCa, firstCa] = await makeCertificates(x509, 2, 'bench-static');
    await writeBundle(server, { name: staticName, signerName, trustBundle: staticCa, create: true });
    await writeBundle(server, { name: rotatingName, signerName, trustBundle: firstCa, create: true });

    // Every rename of FILE into place, timed as it is seen.
    const renames = [];
    watcher = fs.watch(dir, (event, name) => {
      if (event === 'rename' && name === path.basename(file)) renames.push(performance.now());
    });
    let err = '';
    sync = spawn(process.execPath, [clientctl, 'trust', 'sync', '--signer', signerName, '--to', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: server.kubeconfig },
    });
    sync.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    const expect = (pems) => x509.canonicalTrustBundle(pems).pem;
    const content = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    await waitFor('the first write of trust sync', () => {
      if (sync.exitCode !== null) throw new Error(`clientctl trust sync exited with ${sync.exitCode}\n${err}`);
      return content() === expect([staticCa, firstCa]);
    });

    const perRound = [];
    for (let r = 0; r < rounds; r++) {
      log(`round ${r + 1}/${rounds}: ${changes} new CA certificates, then ${changes} changes...`);
      const cas = await makeCertificates(x509, changes, `bench-r${r}`);
      const delays = [];
      for (const ca of cas) {
        const seen = renames.length;
        const { answeredAt } = await writeBundle(server, { name: rotatingName, signerName, trustBundle: ca });
        await waitFor(`the rename after change ${delays.length + 1} of round ${r + 1}`, () => {
          if (sync.exitCode !== null) throw new Error(`clientctl trust sync exited with ${sync.exitCode}\n${err}`);
          return renames.length > seen;
        }, 30_000);
        delays.push(renames[seen] - answeredAt);
        if (content() !== expect([staticCa, ca])) throw new Error(`after change ${delays.length} of round ${r + 1} the file does not hold the new anchors`);
        if (renames.length !== seen + 1) throw new Error(`change ${delays.length} of round ${r + 1}: ${renames.length - seen} renames for one change`);
      }
      const d = distribution(delays);
      perRound.push(d);
      log(`  p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms, min ${d.min} ms (load average ${loadAverage().join(' ')})`);
    }

    const summary = { p50: overRounds(perRound.map((d) => d.p50)), p99: overRounds(perRound.map((d) => d.p99)), max: overRounds(perRound.map((d) => d.max)) };
    const target = { measure: 'p99', value: summary.p99.median, target: '< 1000 ms', ok: perRound.filter((d) => d.p99 < 1000).length, of: rounds };
    const report = { benchmark: 'trust propagation', backend, changes, rounds, node: process.version, cpus: os.cpus().length, loadAverage: loadAverage(), perRound, summary, target };
    if (asJson) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`trust sync propagation: server's 200 on a PATCH -> rename of the file, ${changes} changes x ${rounds} rounds (${backend}, node ${process.version})`);
      console.log(`p50 ${formatRange(summary.p50)} ms   p99 ${formatRange(summary.p99)} ms   max ${formatRange(summary.max)} ms   (median [min–max] over rounds)`);
      console.log(`load average ${report.loadAverage.join(' ')} on ${report.cpus} CPUs`);
      console.log(`${target.ok === rounds ? 'PASS' : 'FAIL'} p99 < 1 s in ${target.ok} of ${rounds} rounds`);
    }
  } finally {
    watcher?.close();
    if (sync && sync.exitCode === null) {
      const exited = new Promise((resolve) => sync.once('exit', resolve));
      sync.kill('SIGTERM');
      await exited;
    }
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
