// One way to start the real apiserver binary (an esbuild bundle of apps/apiserver, see
// bundle-app.mjs) as a child process, shared by the end-to-end tests of both apps (jest) and the
// benchmarks under tools/bench (plain node): plain JavaScript, so all load it as it is; its types
// are in apiserver-process.d.mts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

/** The admin credentials from admin.conf, as any kubeconfig client would read them (for an undici Agent's `connect`). */
export function adminCredentials(kubeconfig) {
  const doc = parse(fs.readFileSync(kubeconfig, 'utf8'));
  const b64 = (s) => Buffer.from(s, 'base64').toString('utf8');
  return {
    ca: b64(doc.clusters[0].cluster['certificate-authority-data']),
    cert: b64(doc.users[0].user['client-certificate-data']),
    key: b64(doc.users[0].user['client-key-data']),
  };
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts an apiserver bundle on `port` (0: a free one) and waits (at most `timeoutMs`) until it
 * prints its URL. Extra flags are appended after the defaults (--secure-port, --data-dir);
 * `nodeArgs` go to node before the bundle.
 */
export async function startApiServer({ bundle, dataDir, port = 0, args = [], nodeArgs = [], timeoutMs = 30_000, cwd }) {
  const child = spawn(process.execPath, [...nodeArgs, bundle, `--secure-port=${port}`, `--data-dir=${dataDir}`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`apiserver did not start within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, timeoutMs);
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
    kubeconfig: path.resolve(cwd ?? process.cwd(), dataDir, 'admin.conf'),
    dataDir,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
