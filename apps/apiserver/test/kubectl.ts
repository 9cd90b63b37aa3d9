import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startApiServer, tempDir, type StartedApiServer } from './apiserver-process.js';

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

/** A ClusterTrustBundle manifest for kubectl -f (JSON, which is YAML too). */
export function bundleYaml(name: string, trustBundle: string, extra: { signerName?: string; labels?: Record<string, string> } = {}): string {
  const doc = {
    apiVersion: 'certificates.plat.io/v1alpha1',
    kind: 'ClusterTrustBundle',
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { ...(extra.signerName ? { signerName: extra.signerName } : {}), trustBundle },
  };
  return JSON.stringify(doc);
}

export interface KubectlSuite {
  /** Writes a file into the suite's folder for manifests; answers its path. */
  write(name: string, content: string): string;
  /** Starts the bundled apiserver (memory storage, then `args`); answers the admin's env for kubectl(). */
  start(args?: string[]): Promise<{ kubeconfig: string; home: string }>;
  /** Stops the apiserver with SIGTERM (answers its exit code, undefined if it never started) and removes the folders. */
  stop(): Promise<number | null | undefined>;
}

/**
 * The folders of an end-to-end suite (`<prefix>-data-`, `-home-`, `-files-`) and the apiserver on
 * them: kubectl's, and the client libraries' (client-node.test.ts, python-client.test.ts).
 */
export function kubectlSuite(prefix: string): KubectlSuite {
  const dataDir = tempDir(`${prefix}-data-`);
  const home = tempDir(`${prefix}-home-`);
  const files = tempDir(`${prefix}-files-`);
  let server: StartedApiServer | undefined;
  return {
    write(name, content) {
      const file = path.join(files, name);
      fs.writeFileSync(file, content);
      return file;
    },
    async start(args = []) {
      server = await startApiServer({ dataDir, args: ['--storage-backend=memory', ...args] });
      return { kubeconfig: server.kubeconfig, home };
    },
    async stop() {
      const code = await server?.stop('SIGTERM');
      for (const d of [dataDir, home, files]) fs.rmSync(d, { recursive: true, force: true });
      return code;
    },
  };
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
