import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCertificateAuthority } from '@plat/x509';
import { checkHistory, countByKind } from './checker.js';
import type { FinalState, History } from './history.js';
import { Replica } from './replica.js';
import type { ChaosReport } from './run-chaos.js';
import { readSqliteHistory } from './sqlite-history.js';
import { listAll, runClients, runWatcher, seededRandom, type Recorded } from './traffic.js';

export interface SqliteChaosOptions {
  seed: number;
  bundle: string;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A small tmpfs as the data dir, so the disk can really fill up (mounting needs root: without it
 * the run skips the full disk and says so). Returns the directory and how to remove it.
 */
function smallDisk(log: (line: string) => void): { dir: string; tmpfs: boolean; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plat-chaos-sqlite-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', dir], { stdio: 'ignore' });
    return {
      dir,
      tmpfs: true,
      remove: () => {
        try {
          execFileSync('umount', [dir], { stdio: 'ignore' });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch {
    log('cannot mount a tmpfs (needs root): the full-disk fault is skipped');
    return { dir, tmpfs: false, remove: () => rmSync(dir, { recursive: true, force: true }) };
  }
}

/** Fills the disk holding `dir` with a file until the disk refuses more; returns the file. */
function fillDisk(dir: string): string {
  const file = path.join(dir, 'filler');
  const chunk = Buffer.alloc(1024 * 1024);
  let size = 0;
  try {
    for (;;) {
      writeFileSync(file, chunk, { flag: 'a' });
      size++;
      if (size > 4096) break;
    }
  } catch {
    // ENOSPC: the disk is full.
  }
  return file;
}

/**
 * The same checker over one replica on SQLite: traffic and watches while the replica is killed
 * (SIGKILL) and restarted, and while its disk is full; then its own revision log is the history
 * the run is checked against.
 */
export async function runSqliteChaos(o: SqliteChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => undefined);
  const t0 = Date.now();
  const now = () => Date.now() - t0;
  const disk = smallDisk(log);
  const replica = new Replica(0, o.bundle, ['--storage-backend=sqlite'], disk.dir);
  const faults: string[] = [];
  const note = (line: string) => {
    faults.push(`${now()} ms: ${line}`);
    log(`${now()} ms: ${line}`);
  };
  const rec: Recorded = { writes: [], lists: [], watches: [] };
  const stop = new AbortController();
  try {
    await replica.start();
    const anchor = await createCertificateAuthority({ commonName: 'chaos-anchor' });
    const traffic = { replicas: [replica], clients: 3, seed: o.seed, anchorPem: anchor.certPem, now, signal: stop.signal };
    const running = [runClients(traffic, rec), runWatcher(traffic, rec, 'w0', seededRandom(o.seed * 7919))];
    await sleep(3000);
    for (let i = 0; i < 2; i++) {
      note('SIGKILL replica 0, restart after 1 s');
      await replica.killAndRestart(1000);
      await sleep(3000);
    }
    if (disk.tmpfs) {
      note('disk full for 5 s');
      const filler = fillDisk(disk.dir);
      await sleep(5000);
      rmSync(filler, { force: true });
      await sleep(3000);
    }
    const recoverBy = Date.now() + 30_000;
    while (!(await replica.ready())) {
      if (Date.now() > recoverBy) throw new Error(`the replica did not become ready again: ${await replica.readyzText()}`);
      await sleep(250);
    }
    await sleep(1000);
    stop.abort();
    await Promise.allSettled(running);
    const listed = await listAll(replica);
    if (!listed) throw new Error('the replica cannot list after the run');
    const final: FinalState[] = [{ replica: 0, rv: listed.rv, objects: listed.objects }];
    const guardDrops = { replica0: await replica.metric('apiserver_watch_events_duplicate_dropped_total') };
    await replica.shutdown();
    const history: History = {
      ...rec,
      etcd: await readSqliteHistory(path.join(disk.dir, 'storage.db'), '/certificates.plat.io/clustertrustbundles/'),
      final,
      maxAnswerMs: 70_000,
    };
    const violations = checkHistory(history);
    const count = (k: string) => rec.writes.filter((w) => w.outcome.kind === k).length;
    return {
      mode: 'sqlite',
      seed: o.seed,
      durationMs: Date.now() - t0,
      faults,
      writes: { ok: count('ok'), failed: count('failed'), unknown: count('unknown') },
      lists: rec.lists.length,
      watchChains: rec.watches.length,
      watchEvents: rec.watches.reduce((n, c) => n + c.segments.reduce((m, s) => m + s.events.length, 0), 0),
      etcdChanges: history.etcd.length,
      guardDrops,
      violations,
      byKind: countByKind(violations),
    };
  } finally {
    stop.abort();
    await replica.stop().catch(() => undefined);
    disk.remove();
  }
}
