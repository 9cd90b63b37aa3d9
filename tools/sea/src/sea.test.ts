import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

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

function run(exe: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(exe, args, { cwd, env: noNode(cwd), timeout: 60_000 }, (err, stdout, stderr) =>
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

  it('apiserver runs alone without node: --version, serves on SQLite with its native module from a private cache, answers the clientctl executable', async () => {
    const cwd = path.join(dir, 'apiserver');
    const version = await run('./apiserver', ['--version'], cwd);
    expect(version.stdout).toMatch(/^apiserver v\d+\.\d+\.\d+\n$/);
    const child = spawn('./apiserver', ['--data-dir', 'data', '--secure-port', '0'], { cwd, env: noNode(cwd), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!/is serving at https:/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`apiserver did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const cache = path.join(cwd, '.cache', 'plat');
      expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
      expect(fs.readdirSync(cache)).toEqual([expect.stringMatching(/^better_sqlite3-[0-9a-f]{16}\.node$/)]);
      const get = await run(path.join(dir, 'clientctl', 'clientctl'), ['--kubeconfig', 'data/admin.conf', 'get', 'namespaces', '-o', 'name'], cwd);
      expect(get).toEqual({ code: 0, stdout: 'namespace/default\nnamespace/plat-public\nnamespace/plat-system\n', stderr: '' });
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    // etcd3 reads .proto files from node_modules at run time: the executable says so instead.
    const etcd = await run('./apiserver', ['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:1', '--data-dir', 'data2', '--secure-port', '0'], cwd);
    expect(etcd.code).toBe(1);
    expect(etcd.stderr).toContain('the etcd3 storage backend is not part of the single executable apiserver');
  });
});
