import type { ChildProcess } from 'node:child_process';

export interface StartedApiServer {
  url: string;
  port: number;
  kubeconfig: string;
  dataDir: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Credentials {
  ca: string;
  cert: string;
  key: string;
}

export interface StartApiServerOptions {
  /** The apiserver bundle to run (bundle-app.mjs builds it). */
  bundle: string;
  dataDir: string;
  /** --secure-port; 0 (the default) picks a free one. */
  port?: number;
  /** Flags after --secure-port and --data-dir. */
  args?: string[];
  /** Node options before the bundle (`--import`, `--trace-gc-nvp`). */
  nodeArgs?: string[];
  timeoutMs?: number;
  cwd?: string;
}

export function adminCredentials(kubeconfig: string): Credentials;
export function tempDir(prefix: string): string;
export function startApiServer(opts: StartApiServerOptions): Promise<StartedApiServer>;
