import { TestEtcdCluster } from '@plat/storage/testing';
import { createCertificateAuthority } from '@plat/x509';
import { checkHistory, countByKind } from './checker.js';
import { readEtcdHistory } from './etcd-history.js';
import { injectFault, type FaultName } from './faults.js';
import type { FinalState, History, Violation } from './history.js';
import { Replica } from './replica.js';
import { listAll, runClients, runWatcher, seededRandom, type Recorded } from './traffic.js';

export interface ChaosOptions {
  /** short: each fault once (about a minute); long: several rounds in a seeded order, the long quorum loss included. */
  mode: 'short' | 'long';
  seed: number;
  /** The apiserver binary (tools/e2e/bundle-app.mjs builds it). */
  bundle: string;
  log?: (line: string) => void;
}

export interface ChaosReport {
  mode: string;
  seed: number;
  durationMs: number;
  faults: string[];
  writes: { ok: number; failed: number; unknown: number };
  lists: number;
  watchChains: number;
  watchEvents: number;
  etcdChanges: number;
  /**
   * Events the replicas' guards refused (apiserver_watch_events_duplicate_dropped_total, since
   * each replica's last start): clients never saw them, but each is a bug below that layer.
   */
  guardDrops: Record<string, Record<string, number>>;
  violations: Violation[];
  byKind: Record<string, number>;
}

const etcdPrefix = '/registry';
const resourcePrefix = `${etcdPrefix}/certificates.plat.io/clustertrustbundles/`;
/** kube-apiserver's default --request-timeout (60 s), plus slack for a loaded machine. */
const maxAnswerMs = 70_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function faultPlan(mode: 'short' | 'long', rand: () => number): FaultName[] {
  const each: FaultName[] = ['leader-pause', 'member-kill', 'replica-kill', 'quorum-loss-short'];
  if (mode === 'short') return each;
  const plan: FaultName[] = [];
  for (let round = 0; round < 2; round++) {
    const shuffled = [...each, 'quorum-loss-long' as FaultName].map((f) => ({ f, k: rand() })).sort((a, b) => a.k - b.k);
    plan.push(...shuffled.map((x) => x.f));
  }
  return plan;
}

/**
 * One run: a 3-member etcd cluster, two apiserver replicas on it, recorded traffic and watches
 * through both while the faults are injected one after another, then every fault healed, both
 * replicas ready again (no restart beyond the faults'), their final state, etcd's own history, and
 * the check of the history against it.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => undefined);
  const rand = seededRandom(o.seed);
  const t0 = Date.now();
  const now = () => Date.now() - t0;
  const cluster = new TestEtcdCluster(3);
  const replicas: Replica[] = [];
  const faults: string[] = [];
  const rec: Recorded = { writes: [], lists: [], watches: [] };
  const stop = new AbortController();
  try {
    await cluster.start();
    const args = ['--storage-backend=etcd3', `--etcd-servers=${cluster.urls.join(',')}`, `--etcd-prefix=${etcdPrefix}`];
    for (let i = 0; i < 2; i++) replicas.push(new Replica(i, o.bundle, args));
    await Promise.all(replicas.map((r) => r.start()));
    log(`etcd ${cluster.urls.join(' ')}; replicas ${replicas.map((r) => r.url).join(' ')}`);
    const anchor = await createCertificateAuthority({ commonName: 'chaos-anchor' });
    const traffic = { replicas, clients: 4, seed: o.seed, anchorPem: anchor.certPem, now, signal: stop.signal };
    const running = [runClients(traffic, rec), ...[0, 1].map((i) => runWatcher(traffic, rec, `w${i}`, seededRandom(o.seed * 7919 + i)))];

    await sleep(3000);
    for (const f of faultPlan(o.mode, rand)) {
      const at = now();
      await injectFault(f, {
        cluster,
        replicas,
        rand,
        log: (line) => {
          faults.push(`${at} ms: ${line}`);
          log(`${at} ms: ${line}`);
        },
      });
      await sleep(o.mode === 'short' ? 2000 : 4000);
    }

    // Recovery without a restart: both replicas ready again and taking writes.
    const recoverBy = Date.now() + 60_000;
    for (const r of replicas) {
      while (!(await r.ready())) {
        if (Date.now() > recoverBy) throw new Error(`replica ${r.index} did not become ready again: ${await r.readyzText()}`);
        await sleep(250);
      }
    }
    await sleep(2000);
    stop.abort();
    await Promise.allSettled(running);

    const guardDrops: Record<string, Record<string, number>> = {};
    for (const r of replicas) guardDrops[`replica${r.index}`] = await r.metric('apiserver_watch_events_duplicate_dropped_total');
    const final: FinalState[] = [];
    for (const r of replicas) {
      const listed = await listAll(r);
      if (!listed) throw new Error(`replica ${r.index} cannot list after the run`);
      final.push({ replica: r.index, rv: listed.rv, objects: listed.objects });
    }
    const etcd = await readEtcdHistory(cluster.urls, resourcePrefix);
    const history: History = { ...rec, etcd, final, maxAnswerMs };
    const violations = checkHistory(history);
    const count = (k: string) => rec.writes.filter((w) => w.outcome.kind === k).length;
    return {
      mode: o.mode,
      seed: o.seed,
      durationMs: Date.now() - t0,
      faults,
      writes: { ok: count('ok'), failed: count('failed'), unknown: count('unknown') },
      lists: rec.lists.length,
      watchChains: rec.watches.length,
      watchEvents: rec.watches.reduce((n, c) => n + c.segments.reduce((m, s) => m + s.events.length, 0), 0),
      etcdChanges: etcd.length,
      guardDrops,
      violations,
      byKind: countByKind(violations),
    };
  } finally {
    stop.abort();
    for (const r of replicas) await r.stop().catch(() => undefined);
    await cluster.destroy();
  }
}
