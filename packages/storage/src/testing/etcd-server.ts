import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './free-port.js';
import { freezeProcess } from './freeze-process.js';

export const etcdBinary = process.env.PLAT_ETCD_BINARY ?? '/usr/bin/etcd';
export const hasEtcd = existsSync(etcdBinary);


function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** A real etcd on loopback ports with a temporary data dir, for tests. */
export interface TestEtcdTls {
  /** PEM files: etcd's serving certificate and key, and the CA that client certificates must chain to. */
  certFile: string;
  keyFile: string;
  clientCaFile: string;
}

export class TestEtcd {
  constructor(private readonly tls?: TestEtcdTls) {}

  private proc: ChildProcess | undefined;
  private log = '';
  readonly dataDir = mkdtempSync(path.join(os.tmpdir(), 'plat-etcd-'));
  clientPort = 0;
  peerPort = 0;

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.clientPort}`;
  }

  async start(): Promise<void> {
    if (!this.clientPort) {
      this.clientPort = await freeLoopbackPort();
      this.peerPort = await freeLoopbackPort();
    }
    const peer = `http://127.0.0.1:${this.peerPort}`;
    this.log = '';
    const proc = spawn(
      etcdBinary,
      [
        '--name', 'plat-test',
        '--data-dir', this.dataDir,
        '--listen-client-urls', this.url,
        '--advertise-client-urls', this.url,
        '--listen-peer-urls', peer,
        '--initial-advertise-peer-urls', peer,
        '--initial-cluster', `plat-test=${peer}`,
        '--logger', 'zap',
        '--log-level', 'error',
        ...(this.tls
          ? ['--cert-file', this.tls.certFile, '--key-file', this.tls.keyFile, '--trusted-ca-file', this.tls.clientCaFile, '--client-cert-auth']
          : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    proc.stdout?.on('data', (d: Buffer) => (this.log += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.log += d.toString()));
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`etcd exited with ${proc.exitCode}: ${this.log}`);
      if (this.tls) {
        // /health needs a client certificate here: wait for the port instead.
        if (await portOpen(this.clientPort)) return;
      } else {
        try {
          const res = await fetch(`${this.url}/health`);
          const body = (await res.json()) as { health?: string };
          if (body.health === 'true') return;
        } catch {
          // not listening yet
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd did not become healthy: ${this.log}`);
  }

  /** Stops etcd (SIGTERM, or SIGKILL to simulate a crash) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Freezes etcd (SIGSTOP) and resolves once every one of its threads has stopped: from then on
   * connections stay open and calls hang unanswered, as with an etcd stuck on a slow disk.
   * {@link resume} (SIGCONT) lets it go on.
   */
  async pause(): Promise<void> {
    if (this.proc) await freezeProcess(this.proc);
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
