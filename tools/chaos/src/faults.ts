import type { TestEtcdCluster } from '@plat/storage/testing';
import type { Replica } from './replica.js';

export type FaultName = 'leader-pause' | 'member-kill' | 'replica-kill' | 'quorum-loss-short' | 'quorum-loss-long';

export interface FaultTarget {
  cluster: TestEtcdCluster;
  replicas: Replica[];
  rand: () => number;
  /** Writes a line to the run's log. */
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A member other than `not`, chosen by the run's generator. */
function otherMember(t: FaultTarget, not: number | undefined): number {
  const choices = [...Array(t.cluster.size).keys()].filter((i) => i !== not);
  return choices[Math.floor(t.rand() * choices.length)]!;
}

/**
 * The faults of the issue, each healing itself before it returns: the etcd leader frozen
 * (SIGSTOP) for 5 s, a follower killed (SIGKILL) and restarted, a replica killed and restarted,
 * two of three members killed (quorum lost) for 5 s, or for 20 s (past etcd's and the client's
 * 10 s request timeouts).
 */
export async function injectFault(name: FaultName, t: FaultTarget): Promise<void> {
  switch (name) {
    case 'leader-pause': {
      const leader = (await t.cluster.leader()) ?? 0;
      t.log(`SIGSTOP etcd leader m${leader} for 5 s`);
      await t.cluster.pause(leader);
      await sleep(5000);
      t.cluster.resume(leader);
      return;
    }
    case 'member-kill': {
      const follower = otherMember(t, await t.cluster.leader());
      t.log(`SIGKILL etcd follower m${follower}, restart after 2 s`);
      await t.cluster.kill(follower);
      await sleep(2000);
      await t.cluster.restart(follower);
      return;
    }
    case 'replica-kill': {
      const r = t.replicas[Math.floor(t.rand() * t.replicas.length)]!;
      t.log(`SIGKILL replica ${r.index}, restart after 1 s`);
      await r.killAndRestart(1000);
      return;
    }
    case 'quorum-loss-short':
    case 'quorum-loss-long': {
      const ms = name === 'quorum-loss-short' ? 5000 : 20_000;
      const a = otherMember(t, undefined);
      const b = otherMember(t, a);
      t.log(`SIGKILL etcd m${a} and m${b} (quorum lost) for ${ms / 1000} s`);
      await t.cluster.kill(a);
      await t.cluster.kill(b);
      await sleep(ms);
      await t.cluster.restart(a, false);
      await t.cluster.restart(b, false);
      await t.cluster.waitHealthy(a, 30_000);
      await t.cluster.waitHealthy(b, 30_000);
      return;
    }
  }
}
