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
  dataDir: string;
  /** Flags after --secure-port=0 and --data-dir. */
  args?: string[];
  /** Node options before the bundle (`--import`, `--trace-gc-nvp`). */
  nodeArgs?: string[];
  timeoutMs?: number;
  cwd?: string;
  /** The bundle to run; by default the one the jest global setup built. */
  bundle?: string;
}

export function bundlePath(): string;
export function buildApiServerBundle(): Promise<string>;
export function adminCredentials(kubeconfig: string): Credentials;
export function tempDir(prefix: string): string;
export function startApiServer(opts: StartApiServerOptions): Promise<StartedApiServer>;
