import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { etcdBinary } from './etcd-server.js';
import { freeLoopbackPort } from './free-port.js';
import { freezeProcess } from './freeze-process.js';


interface Member {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  proc?: ChildProcess;
  paused: boolean;
  log: string;
}

/**
 * A real etcd cluster of `size` members on loopback, for fault tests: members can be killed
 * (SIGKILL) and restarted on their data, frozen (SIGSTOP) and resumed, and the leader found.
 */
export class TestEtcdCluster {
  private readonly members: Member[] = [];
  private readonly root = mkdtempSync(path.join(os.tmpdir(), 'plat-etcd-cluster-'));

  constructor(readonly size = 3) {}

  /** Client URLs of every member (`--etcd-servers`). */
  get urls(): string[] {
    return this.members.map((m) => `http://127.0.0.1:${m.clientPort}`);
  }

  url(i: number): string {
    return `http://127.0.0.1:${this.members[i]!.clientPort}`;
  }

  async start(): Promise<void> {
    for (let i = 0; i < this.size; i++) {
      this.members.push({ name: `m${i}`, clientPort: await freeLoopbackPort(), peerPort: await freeLoopbackPort(), dataDir: path.join(this.root, `m${i}`), paused: false, log: '' });
    }
    for (let i = 0; i < this.size; i++) this.spawn(i);
    await Promise.all(this.members.map((_, i) => this.waitHealthy(i)));
  }

  private spawn(i: number): void {
    const m = this.members[i]!;
    const initialCluster = this.members.map((x) => `${x.name}=http://127.0.0.1:${x.peerPort}`).join(',');
    const client = `http://127.0.0.1:${m.clientPort}`;
    const peer = `http://127.0.0.1:${m.peerPort}`;
    m.log = '';
    const proc = spawn(
      etcdBinary,
      [
        '--name', m.name,
        '--data-dir', m.dataDir,
        '--listen-client-urls', client,
        '--advertise-client-urls', client,
        '--listen-peer-urls', peer,
        '--initial-advertise-peer-urls', peer,
        '--initial-cluster', initialCluster,
        '--initial-cluster-state', 'new',
        '--initial-cluster-token', path.basename(this.root),
        // Loopback: short heartbeats so an election after a fault takes well under a second.
        '--heartbeat-interval', '50',
        '--election-timeout', '500',
        '--logger', 'zap',
        '--log-level', 'error',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout?.on('data', (d: Buffer) => (m.log = (m.log + d.toString()).slice(-20_000)));
    proc.stderr?.on('data', (d: Buffer) => (m.log = (m.log + d.toString()).slice(-20_000)));
    m.proc = proc;
    m.paused = false;
  }

  /** Waits until member `i` answers /health (it may still lack a leader: then /health says false). */
  async waitHealthy(i: number, ms = 20_000): Promise<void> {
    const m = this.members[i]!;
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (m.proc?.exitCode !== null && m.proc?.exitCode !== undefined) throw new Error(`etcd ${m.name} exited with ${m.proc.exitCode}: ${m.log}`);
      try {
        const res = await fetch(`${this.url(i)}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd ${m.name} did not become healthy: ${m.log}`);
  }

  /** The index of the member that leads, as the members answering say. */
  async leader(): Promise<number | undefined> {
    for (let i = 0; i < this.size; i++) {
      if (!this.running(i)) continue;
      try {
        const res = await fetch(`${this.url(i)}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { header?: { member_id?: string }; leader?: string };
        if (!body.leader || body.leader === '0') continue;
        if (body.leader === body.header?.member_id) return i;
        for (let j = 0; j < this.size; j++) {
          if (j === i || !this.running(j)) continue;
          const other = (await (await fetch(`${this.url(j)}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) })).json()) as {
            header?: { member_id?: string };
          };
          if (other.header?.member_id === body.leader) return j;
        }
      } catch {
        // this member does not answer; ask the next
      }
    }
    return undefined;
  }

  /** Member `i` runs and is not frozen. */
  running(i: number): boolean {
    const m = this.members[i]!;
    return !!m.proc && m.proc.exitCode === null && m.proc.signalCode === null && !m.paused;
  }

  /** SIGKILL of member `i` (a crash); its data stays for {@link restart}. */
  async kill(i: number): Promise<void> {
    const proc = this.members[i]!.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  /** Starts member `i` again on its data, rejoining the cluster. */
  async restart(i: number, waitHealthy = true): Promise<void> {
    await this.kill(i);
    this.spawn(i);
    if (waitHealthy) await this.waitHealthy(i);
  }

  /** Freezes member `i` (SIGSTOP); resolves once all its threads have stopped. */
  async pause(i: number): Promise<void> {
    const proc = this.members[i]!.proc;
    this.members[i]!.paused = true;
    if (proc) await freezeProcess(proc);
  }

  resume(i: number): void {
    this.members[i]!.proc?.kill('SIGCONT');
    this.members[i]!.paused = false;
  }

  async destroy(): Promise<void> {
    for (let i = 0; i < this.members.length; i++) {
      this.resume(i);
      await this.kill(i);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
