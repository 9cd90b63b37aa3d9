import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export const kubectlPath = '/usr/bin/kubectl';
export const hasKubectl = fs.existsSync(kubectlPath);

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl with its own cache directory and no ambient configuration. */
export function kubectl(env: { kubeconfig: string; home: string }, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath,
      ['--kubeconfig', env.kubeconfig, '--cache-dir', `${env.home}/cache`, ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin', HOME: env.home }, timeout: 30000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    // Always close stdin: kubectl would otherwise wait for interactive input (for example a login prompt).
    child.stdin!.end(input ?? '');
  });
}

/** Starts a long-running kubectl (for -w); collects its output. */
export function kubectlStream(env: { kubeconfig: string; home: string }, args: string[]): { child: ChildProcess; output(): string } {
  const child = spawn(kubectlPath, ['--kubeconfig', env.kubeconfig, '--cache-dir', `${env.home}/cache`, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin', HOME: env.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  return { child, output: () => out };
}

/** Polls `check` every 50 ms until it is true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
