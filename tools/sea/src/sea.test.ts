import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { TestEtcd, etcdBinary, hasEtcd } from '@plat/storage/testing';

// The single executables as a machine without Node gets them: each copied alone into an empty
// folder and run with a PATH that has no node (and no node_modules anywhere above). Built once
// here with tools/sea/build-sea.mjs, as `npm run build:sea` builds them.
const root = path.resolve(import.meta.dirname, '../../..');
let postjectMissing = '';
try {
  createRequire(import.meta.url).resolve('postject/package.json');
} catch {
  postjectMissing = 'the postject package is not installed (npm ci installs it)';
}
if (postjectMissing) console.warn(`single executable tests SKIPPED: ${postjectMissing}`);

let dir: string;
let built: Record<string, { exe: string }>;
const noNode = (home: string) => ({ PATH: '/nonexistent', HOME: home });
const kubectl = process.env.KUBECTL ?? '/usr/bin/kubectl';
const hasKubectl = fs.existsSync(kubectl);
if (!hasEtcd) console.warn(`single executable apiserver on etcd SKIPPED: ${etcdBinary} is missing`);

function run(exe: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(exe, args, { cwd, env: { ...noNode(cwd), ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
    );
  });
}

(postjectMissing ? describe.skip : describe)('single executables (npm run build:sea)', () => {
  beforeAll(async () => {
    const script = path.join(root, 'tools/sea/build-sea.mjs');
    const { buildSea } = (await import(script)) as { buildSea(): Promise<Record<string, { exe: string }>> };
    built = await buildSea();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-sea-'));
    for (const name of ['clientctl', 'apiserver']) {
      fs.mkdirSync(path.join(dir, name));
      fs.copyFileSync(built[name]!.exe, path.join(dir, name, name));
      fs.chmodSync(path.join(dir, name, name), 0o755);
    }
  }, 240_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('clientctl runs alone without node: version and a local patch', async () => {
    const cwd = path.join(dir, 'clientctl');
    expect(fs.readdirSync(cwd)).toEqual(['clientctl']);
    const version = await run('./clientctl', ['version', '--client'], cwd);
    expect(version).toEqual({ code: 0, stdout: `Client Version: v${JSON.parse(fs.readFileSync(path.join(root, 'apps/clientctl/package.json'), 'utf8')).version}\n`, stderr: '' });
    fs.writeFileSync(path.join(cwd, 'd.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n');
    const patched = await run('./clientctl', ['patch', '--local', '-f', 'd.yaml', '-p', '{"spec":{"replicas":3}}', '-o', 'jsonpath={.spec.replicas}'], cwd);
    expect(patched).toEqual({ code: 0, stdout: '3', stderr: '' });
  });

  // `clientctl patch ...` runs the part without the other commands (tools/sea/build-sea.mjs); a
  // patch command line that starts with a flag runs the whole app: both must answer alike.
  it('clientctl: the patch part answers as the whole app does (help, errors), and V8 takes every code cache', async () => {
    const cwd = path.join(dir, 'clientctl');
    for (const args of [['--help'], [], ['-f', 'missing.yaml', '-p', '{}', '--local'], ['--local', '-f', 'd.yaml', '-p', '{"spec":'], ['get', 'x']]) {
      const part = await run('./clientctl', ['patch', ...args], cwd);
      const whole = await run('./clientctl', ['-v=0', 'patch', ...args], cwd);
      expect(part).toEqual(whole);
    }
    expect((await run('./clientctl', ['patch', '--help'], cwd)).stdout).toMatch(/^Update fields of a resource\.\n/);
    for (const args of [['patch', '--local', '-f', 'd.yaml', '-p', '{"spec":{"replicas":3}}'], ['version', '--client']]) {
      const { code, stderr } = await run('./clientctl', args, cwd, { PLAT_SEA_DEBUG: '1' });
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^sea cpu ms: start [\d.]+, (patch|main) compile [\d.]+, (patch|main) load [\d.]+, exit [\d.]+\n$/) });
    }
  });

  /** Starts the executable apiserver in cwd and waits until it serves; stop it with the returned function. */
  async function startServer(cwd: string, args: string[]): Promise<{ stop(): Promise<number | null>; output(): string }> {
    const child = spawn('./apiserver', args, { cwd, env: noNode(cwd), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stop = async () => {
      child.kill('SIGTERM');
      return exited;
    };
    const deadline = Date.now() + 60_000;
    while (!/is serving at https:/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await stop();
        throw new Error(`apiserver did not start:\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { stop, output: () => out };
  }

  it('apiserver runs alone without node: --version, serves on SQLite with its native module from a private cache, answers the clientctl executable', async () => {
    const cwd = path.join(dir, 'apiserver');
    const version = await run('./apiserver', ['--version'], cwd);
    expect(version.stdout).toMatch(/^apiserver v\d+\.\d+\.\d+\n$/);
    const server = await startServer(cwd, ['--data-dir', 'data', '--secure-port', '0']);
    try {
      const cache = path.join(cwd, '.cache', 'plat');
      expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
      expect(fs.readdirSync(cache)).toEqual([expect.stringMatching(/^better_sqlite3-[0-9a-f]{16}\.node$/)]);
      const get = await run(path.join(dir, 'clientctl', 'clientctl'), ['--kubeconfig', 'data/admin.conf', 'get', 'namespaces', '-o', 'name'], cwd);
      expect(get).toEqual({ code: 0, stdout: 'namespace/default\nnamespace/plat-public\nnamespace/plat-system\n', stderr: '' });
      // The patch part talking to a server: undici, a part of its own, is loaded on demand.
      const patched = await run(path.join(dir, 'clientctl', 'clientctl'), ['patch', '--kubeconfig', 'data/admin.conf', 'namespace', 'default', '-p', '{"metadata":{"labels":{"sea":"yes"}}}'], cwd, { PLAT_SEA_DEBUG: '1' });
      expect(patched).toEqual({ code: 0, stdout: 'namespace/default patched\n', stderr: expect.stringMatching(/^sea cpu ms: start [\d.]+, patch compile [\d.]+, patch load [\d.]+, undici compile [\d.]+, undici load [\d.]+, exit [\d.]+\n$/) });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  // etcd3's gRPC service definitions are compiled into the executable at build time (it reads
  // .proto files from node_modules otherwise): a create, a read and a watch go through real etcd.
  (hasEtcd ? it : it.skip)('apiserver on etcd: writes reach etcd and come back, watch included', async () => {
    const cwd = path.join(dir, 'apiserver');
    const etcd = new TestEtcd();
    await etcd.start();
    const server = await startServer(cwd, ['--storage-backend=etcd3', `--etcd-servers=${etcd.url}`, '--data-dir', 'data-etcd', '--secure-port', '0']).catch(async (err: unknown) => {
      await etcd.stop();
      throw err;
    });
    const clientctl = path.join(dir, 'clientctl', 'clientctl');
    const kubeconfig = ['--kubeconfig', 'data-etcd/admin.conf'];
    try {
      expect(server.output()).toContain('storage="etcd3"');
      // clientctl has no watch of its own: kubectl (a real Kubernetes client) follows the namespaces
      // from the list's resourceVersion, so the create's event cannot be missed.
      let watch: ReturnType<typeof spawn> | undefined;
      if (hasKubectl) {
        const list = await run(kubectl, [...kubeconfig, 'get', '--raw', '/api/v1/namespaces'], cwd);
        const rv = (JSON.parse(list.stdout) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
        watch = spawn(kubectl, [...kubeconfig, 'get', '--raw', `/api/v1/namespaces?watch=1&resourceVersion=${rv}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      } else {
        console.warn(`watch through etcd NOT checked: ${kubectl} is missing`);
      }
      let watched = '';
      watch?.stdout?.setEncoding('utf8').on('data', (c: string) => (watched += c));
      try {
        fs.writeFileSync(path.join(cwd, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: sea-etcd\n');
        expect(await run(clientctl, [...kubeconfig, 'create', '-f', 'ns.yaml'], cwd)).toEqual({ code: 0, stdout: 'namespace/sea-etcd created\n', stderr: '' });
        const got = await run(clientctl, [...kubeconfig, 'get', 'namespace', 'sea-etcd', '-o', 'jsonpath={.metadata.name}'], cwd);
        expect(got).toEqual({ code: 0, stdout: 'sea-etcd', stderr: '' });
        if (watch) {
          const deadline = Date.now() + 30_000;
          while (!watched.includes('"name":"sea-etcd"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
          expect(watched).toMatch(/\{"type":"ADDED","object":\{"kind":"Namespace","apiVersion":"v1","metadata":\{"name":"sea-etcd"/);
        }
      } finally {
        watch?.kill('SIGTERM');
      }
    } finally {
      expect(await server.stop()).toBe(0);
      await etcd.stop();
    }
  });
});
