import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The apiserver and clientctl bundles, built as their Nx builds do (tools/e2e, shared with the apiserver's e2e setup). */
export async function buildBundles(): Promise<{ apiserver: string; clientctl: string }> {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tools/e2e/bundle-app.mjs');
  const { bundleApp } = (await import(script)) as { bundleApp(app: string): Promise<string> };
  const [apiserver, clientctl] = await Promise.all([bundleApp('apiserver'), bundleApp('clientctl')]);
  return { apiserver, clientctl };
}

/** A `clientctl` command on PATH for shell scripts: `<dir>/clientctl` running the bundle. */
export function clientctlShim(dir: string, bundle: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const shim = path.join(bin, 'clientctl');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(bundle)} "$@"\n`);
  chmodSync(shim, 0o755);
  return bin;
}

export interface ApiserverProcess {
  url: string;
  port: number;
  /** admin.conf of the data directory (rewritten at each start; same credentials). */
  kubeconfig: string;
  /** SIGTERM (graceful) or SIGKILL (a crash, a lost machine); resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the apiserver bundle on SQLite in `dataDir`, on `port` (0: a free one), with `args` as more flags, and waits until it serves. */
export async function startApiserver(bundle: string, dataDir: string, port = 0, args: string[] = []): Promise<ApiserverProcess> {
  // tools/ is no project: loaded by path, as buildBundles loads bundle-app.mjs.
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tools/e2e/apiserver-process.mjs');
  const { startApiServer } = (await import(script)) as typeof import('../../../tools/e2e/apiserver-process.mjs');
  return startApiServer({ bundle, dataDir, port, args: ['--storage-backend=sqlite', ...args] });
}

/** What a walk-through test file runs against: a temporary folder, both bundles, a clientctl shim on PATH and an apiserver on SQLite in `<dir>/data`. */
export interface WalkthroughServer {
  dir: string;
  bundles: { apiserver: string; clientctl: string };
  shimDir: string;
  apiserver: ApiserverProcess;
}

/** Sets up a WalkthroughServer in a new temporary folder named from `prefix` (a file's beforeAll). */
export async function startWalkthroughServer(prefix: string): Promise<WalkthroughServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const bundles = await buildBundles();
  const shimDir = clientctlShim(dir, bundles.clientctl);
  const apiserver = await startApiserver(bundles.apiserver, path.join(dir, 'data'));
  return { dir, bundles, shimDir, apiserver };
}

/** Kills the apiserver the file ends with (it may have been restarted) and removes the folder (a file's afterAll). */
export async function stopWalkthroughServer(env: { dir?: string; apiserver?: ApiserverProcess }): Promise<void> {
  await env.apiserver?.stop('SIGKILL');
  if (env.dir) rmSync(env.dir, { recursive: true, force: true });
}

export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Runs the clientctl bundle as a process (for signals and restarts under it). */
export function spawnClientctl(bundle: string, args: string[], env: Record<string, string | undefined>, cwd?: string): RunningProcess {
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env }, cwd });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `predicate` every 25 ms until it holds, or fails after `timeoutMs` with `what`. */
export async function waitUntil(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A marked shell block of a documentation walk-through: `<!-- walkthrough: MARK -->` then a ```sh block. */
export interface WalkthroughBlock {
  mark: string;
  code: string;
}

/** The marked shell blocks of `docs/<file>` between the headings `from` and `to` (the end of the file without it), in order. */
export function walkthroughBlocks(file: string, from: string, to?: string): WalkthroughBlock[] {
  const text = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs', file), 'utf8');
  const start = text.indexOf(from);
  const section = text.slice(start, to ? text.indexOf(to, start) : undefined);
  return [...section.matchAll(/<!-- walkthrough: ([^>]+?) -->\n```sh\n([\s\S]*?)```/g)].map((m) => ({ mark: m[1]!, code: m[2]! }));
}

/** Runs a script with bash -euo pipefail (60 s at most); answers its exit code and output. */
export function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/bash', ['-euo', 'pipefail', '-c', script], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A TLS service whose certificate is reloaded from files, with keep-alive connections it can drop. */
export class ReloadingTlsService {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  url = '';

  async reload(certFile: string, keyFile: string): Promise<void> {
    const creds = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    if (this.server) {
      this.server.setSecureContext(creds);
      // Connections made with the old certificate end; clients reconnect and verify the new one.
      for (const s of this.sockets) s.destroy();
      return;
    }
    this.server = createServer(creds, (_req, res) => res.end('ok\n'));
    this.server.on('secureConnection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `https://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
  }
}
