import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { createCertificateAuthority } from '@plat/x509';
import { startClientctlServer, type ClientctlServer } from '../test/clientctl-server.js';

// The shipped bundle (esbuild.config.mjs: splitting, minification, side-effect-free libraries) run
// as a real process: catches what only the bundle can break (chunk loading, CommonJS interop).
const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appRoot, '..', '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'clientctl-bundle-'));
const outdir = path.join(tmp, 'dist');
const main = path.join(outdir, 'main.mjs');
const kubectl = '/usr/bin/kubectl';

function run(args: string[], env: Record<string, string>, bin = main): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: ClientctlServer;
let env: Record<string, string>;
let anchor: string;

beforeAll(async () => {
  const { default: config } = (await import(path.join(appRoot, 'esbuild.config.mjs'))) as { default: esbuild.BuildOptions };
  await esbuild.build({
    ...config,
    entryPoints: [path.join(appRoot, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    outdir,
    absWorkingDir: repoRoot,
    tsconfig: path.join(appRoot, 'tsconfig.json'),
    logLevel: 'error',
  });
  server = await startClientctlServer(tmp);
  env = server.env;
  anchor = (await createCertificateAuthority({ commonName: 'bundle-anchor' })).certPem;
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the clientctl bundle', () => {
  it('loads only the start-up chunks for --version and prints the version', async () => {
    expect(await run(['--version'], env)).toEqual({ code: 0, stdout: 'Client Version: v0.1.0\n', stderr: '' });
    // The chunks main.mjs loads statically hold none of the heavy libraries.
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*"(\.[^"]+)"/g)) walk(path.join(path.dirname(file), m[1]));
    };
    walk(main);
    const sources = [...seen].flatMap((f) => (JSON.parse(readFileSync(`${f}.map`, 'utf8')) as { sources: string[] }).sources);
    expect(sources.filter((s) => /node_modules\/(undici|yargs|zod|pkijs|asn1js)\//.test(s))).toEqual([]);
    expect(sources.some((s) => s.includes('node_modules/yaml/'))).toBe(true);
  });

  it('patches locally with the same output as kubectl', async () => {
    const file = path.join(tmp, 'd.yaml');
    writeFileSync(file, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n');
    const args = ['patch', '--local', '-f', file, '-p', '{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}', '-o', 'json'];
    const ours = await run(args, env);
    expect(ours.code).toBe(0);
    if (existsSync(kubectl)) {
      const theirs = await new Promise<string>((resolve) => execFile(kubectl, args, { env: { PATH: process.env.PATH, ...env } }, (_e, out) => resolve(out)));
      expect(ours.stdout).toBe(theirs);
    }
    expect(JSON.parse(ours.stdout).spec.replicas).toBe(3);
  });

  it('talks to a started server: create, get, patch, whoami, delete', async () => {
    const file = path.join(tmp, 'ctb.yaml');
    writeFileSync(file, `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata: {name: b1}\nspec:\n  trustBundle: |\n${anchor.trim().split('\n').map((l) => `    ${l}`).join('\n')}\n`);
    expect(await run(['create', '-f', file], env)).toEqual({ code: 0, stdout: 'clustertrustbundle.certificates.plat.io/b1 created\n', stderr: '' });
    expect((await run(['get', 'ctb', '-o', 'name'], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/b1\n');
    expect((await run(['patch', 'ctb', 'b1', '--type=merge', '-p', '{"metadata":{"labels":{"a":"b"}}}'], env)).stdout).toBe('clustertrustbundle.certificates.plat.io/b1 patched\n');
    expect((await run(['auth', 'whoami'], env)).stdout).toMatch(/^ATTRIBUTE\s+VALUE\nUsername\s+admin\n/);
    expect(await run(['get', 'ctb', 'zz'], env)).toEqual({ code: 1, stdout: '', stderr: 'Error from server (NotFound): clustertrustbundles.certificates.plat.io "zz" not found\n' });
    expect((await run(['delete', 'ctb', 'b1'], env)).stdout).toBe('clustertrustbundle.certificates.plat.io "b1" deleted\n');
  });

  it('prints completion scripts and writes a CPU profile from the bundle', async () => {
    expect((await run(['completion', 'zsh'], env)).stdout).toContain('#compdef clientctl');
    const prof = path.join(tmp, 'p.cpuprofile');
    expect((await run(['version', '--client', '--profile=cpu', `--profile-output=${prof}`], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(prof, 'utf8'))).toHaveProperty('nodes');
  });
});

// The real apiserver binary, when its bundle has been built (npx nx run apiserver:build).
const apiserverBin = path.join(repoRoot, 'apps', 'apiserver', 'bin', 'apiserver.mjs');
const apiserverBuilt = existsSync(path.join(repoRoot, 'apps', 'apiserver', 'dist', 'main.mjs'));
(apiserverBuilt ? describe : describe.skip)('the clientctl bundle against the apiserver binary', () => {
  let child: ChildProcess | undefined;
  let conf = '';
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmp, 'apiserver-'));
    conf = path.join(dataDir, 'admin.conf');
    child = spawn(process.execPath, [apiserverBin, '--secure-port', '0', '--storage-backend', 'memory', '--data-dir', dataDir], { stdio: 'ignore' });
    for (let i = 0; i < 150 && !existsSync(conf); i++) await new Promise((r) => setTimeout(r, 200));
  }, 60_000);
  afterAll(async () => {
    // Gone before the outer afterAll removes its data directory.
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('uses admin.conf written by the server', async () => {
    expect(existsSync(conf)).toBe(true);
    const e = { HOME: tmp, KUBECONFIG: conf };
    const v = await run(['version'], e);
    expect(v.stdout).toMatch(/^Client Version: v0\.1\.0\nServer Version: v\S+\n$/);
    expect((await run(['api-resources', '-o', 'name'], e)).stdout).toContain('clustertrustbundles.certificates.plat.io\n');
    expect((await run(['auth', 'can-i', 'create', 'clustertrustbundles'], e)).stdout).toBe('yes\n');
  });
});
