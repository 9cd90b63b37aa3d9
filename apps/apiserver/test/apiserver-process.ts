import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

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

export function bundlePath(): string {
  const bundle = process.env.PLAT_APISERVER_BUNDLE;
  if (!bundle || !fs.existsSync(bundle)) throw new Error('the apiserver bundle is missing: jest globalSetup builds it (test/global-setup.mjs)');
  return bundle;
}

export interface Credentials {
  ca: string;
  cert: string;
  key: string;
}

/** The admin credentials from admin.conf, as any kubeconfig client would read them (for an undici Agent's `connect`). */
export function adminCredentials(kubeconfig: string): Credentials {
  const doc = parse(fs.readFileSync(kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  return {
    ca: b64(doc.clusters[0].cluster['certificate-authority-data']),
    cert: b64(doc.users[0].user['client-certificate-data']),
    key: b64(doc.users[0].user['client-key-data']),
  };
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts the bundled apiserver on a free port and waits (at most `timeoutMs`) until it prints
 * its URL. Extra flags are appended after the defaults (--secure-port=0, --data-dir).
 */
export async function startApiServer(opts: { dataDir: string; args?: string[]; timeoutMs?: number; cwd?: string }): Promise<StartedApiServer> {
  const child = spawn(process.execPath, [bundlePath(), '--secure-port=0', `--data-dir=${opts.dataDir}`, ...(opts.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: opts.cwd,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`apiserver did not start within ${opts.timeoutMs ?? 30000} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, opts.timeoutMs ?? 30000);
    const poll = setInterval(() => {
      const m = /is serving at (https:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(m[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`apiserver exited with ${code} before serving\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    kubeconfig: path.resolve(opts.cwd ?? process.cwd(), opts.dataDir, 'admin.conf'),
    dataDir: opts.dataDir,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
