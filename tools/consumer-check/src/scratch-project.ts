// A scratch consumer project outside the workspace, built from the packed tarballs: what an
// outside TypeScript user gets from `npm install @plat/<name>`.
//
// Layout (under os.tmpdir()):
//   tarballs/            `npm pack` output of every publishable package
//   packages/<dir>/      each tarball extracted, with a node_modules of its own that holds exactly
//                        its declared dependencies: @plat ones link to packages/<dep>, third-party
//                        ones to the copy the workspace installed (offline, same versions as the
//                        lock file). Nothing above tmpdir may hold a node_modules, so a package
//                        resolves only what it declares (a strict, non-hoisted install).
//   app/                 the consumer: package.json, tsconfig (strict, NodeNext, no esModuleInterop,
//                        no skipLibCheck), node_modules linking every @plat package, typescript,
//                        @types/node and what the examples import, and src/ with the examples.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const workspaceRoot = path.resolve(import.meta.dirname, '../../..');
const execFileAsync = promisify(execFile);

export interface WorkspacePackage {
  /** Folder name under packages/. */
  dir: string;
  name: string;
  manifest: {
    name: string;
    exports: Record<string, unknown>;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
}

export interface PackedPackage extends WorkspacePackage {
  tarball: string;
  /** Paths inside the tarball, relative to the package root. */
  files: string[];
  /** Where the tarball is extracted. */
  installDir: string;
}

export interface Example {
  pkg: WorkspacePackage;
  /** e.g. `examples/trust-bundle.ts`, relative to the package. */
  file: string;
  /** The compiled program, relative to the scratch app. */
  program: string;
}

/** What a consumer can import from a package: `@plat/x` and each subpath export (`@plat/x/json`). */
export function entryPoints(pkg: WorkspacePackage): string[] {
  return Object.keys(pkg.manifest.exports)
    .filter((key) => key.startsWith('.') && !key.endsWith('.json'))
    .map((key) => pkg.name + key.slice(1));
}

export function publishablePackages(): WorkspacePackage[] {
  const dirs = fs.readdirSync(path.join(workspaceRoot, 'packages')).sort();
  return dirs.flatMap((dir) => {
    const file = path.join(workspaceRoot, 'packages', dir, 'package.json');
    if (!fs.existsSync(file)) return [];
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    return manifest.private ? [] : [{ dir, name: manifest.name, manifest }];
  });
}

/** The README examples: every `packages/<dir>/examples/*.ts`. */
export function listExamples(packages: WorkspacePackage[]): Example[] {
  return packages.flatMap((pkg) => {
    const dir = path.join(workspaceRoot, 'packages', pkg.dir, 'examples');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => ({ pkg, file: `examples/${f}`, program: `dist/${pkg.dir}/${f.replace(/\.ts$/, '.js')}` }));
  });
}

export async function run(command: string, args: string[], opts: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }) {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: opts.cwd,
      timeout: opts.timeoutMs ?? 60_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...opts.env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr || e.message };
  }
}

/** The installed copy of a third-party package as the workspace resolves it from a package's folder. */
export function workspaceCopy(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === workspaceRoot || dir === path.dirname(dir)) return undefined;
  }
}

export function link(target: string, at: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at, 'dir');
}

/** Refuses a scratch folder below a node_modules folder, through which undeclared packages would resolve. */
export function assertNoNodeModulesAbove(dir: string): void {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules'))) throw new Error(`${d}/node_modules would be visible to the scratch packages`);
    if (d === path.dirname(d)) return;
  }
}

export async function packAndInstall(scratch: string, packages: WorkspacePackage[]): Promise<PackedPackage[]> {
  assertNoNodeModulesAbove(scratch);
  for (const pkg of packages) {
    if (!fs.existsSync(path.join(workspaceRoot, 'packages', pkg.dir, 'dist', 'index.js'))) {
      throw new Error(`packages/${pkg.dir}/dist is missing: run \`npx nx run-many -t build\` (the Nx test target depends on it)`);
    }
  }
  const tarballs = path.join(scratch, 'tarballs');
  fs.mkdirSync(tarballs, { recursive: true });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', tarballs, ...packages.map((p) => `--workspace=packages/${p.dir}`)], {
    cwd: workspaceRoot,
    env: { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const reports = JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[];
  const result: PackedPackage[] = [];
  for (const pkg of packages) {
    const report = reports.find((r) => r.name === pkg.name);
    if (!report) throw new Error(`npm pack did not report ${pkg.name}`);
    const installDir = path.join(scratch, 'packages', pkg.dir);
    fs.mkdirSync(installDir, { recursive: true });
    const tarball = path.join(tarballs, report.filename);
    const untar = await run('tar', ['-xzf', tarball, '-C', installDir, '--strip-components=1'], { cwd: scratch });
    if (untar.code !== 0) throw new Error(`extracting ${tarball}: ${untar.stderr}`);
    result.push({ ...pkg, tarball, files: report.files.map((f) => f.path), installDir });
  }
  for (const pkg of result) {
    const declared = { ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies };
    for (const dep of Object.keys(declared)) {
      const at = path.join(pkg.installDir, 'node_modules', dep);
      const sibling = result.find((p) => p.name === dep);
      if (sibling) {
        link(sibling.installDir, at);
        continue;
      }
      const copy = workspaceCopy(path.join(workspaceRoot, 'packages', pkg.dir), dep);
      if (!copy) throw new Error(`${pkg.name} declares ${dep}, which the workspace has not installed`);
      link(copy, at);
    }
  }
  return result;
}

/**
 * The consumer project: every example copied to src/<dir>/<file>, the packages they import
 * declared and linked, compiled with the consumer's compiler options.
 */
export function createConsumerApp(scratch: string, packed: PackedPackage[], examples: Example[], thirdParty: string[]): string {
  const appDir = path.join(scratch, 'app');
  for (const { pkg, file } of examples) {
    const target = path.join(appDir, 'src', pkg.dir, path.basename(file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(workspaceRoot, 'packages', pkg.dir, file), target);
  }
  // Every package's public types (each entry point), whether an example uses them or not.
  fs.writeFileSync(
    path.join(appDir, 'src', 'all-packages.ts'),
    packed
      .flatMap(entryPoints)
      .map((specifier) => `export * as ${specifier.replace(/\W/g, '_')} from '${specifier}';\n`)
      .join(''),
  );
  const dependencies: Record<string, string> = {};
  for (const pkg of packed) {
    dependencies[pkg.name] = `file:${path.relative(appDir, pkg.tarball)}`;
    link(pkg.installDir, path.join(appDir, 'node_modules', pkg.name));
  }
  for (const name of ['typescript', '@types/node', ...thirdParty]) {
    const copy = workspaceCopy(workspaceRoot, name);
    if (!copy) throw new Error(`the workspace has no ${name} to link into the consumer project`);
    dependencies[name] = JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8')).version;
    link(copy, path.join(appDir, 'node_modules', name));
  }
  fs.writeFileSync(
    path.join(appDir, 'package.json'),
    JSON.stringify({ name: 'plat-consumer', private: true, type: 'module', dependencies }, null, 2),
  );
  fs.writeFileSync(
    path.join(appDir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          esModuleInterop: false,
          skipLibCheck: false,
          types: ['node'],
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  return appDir;
}

export function makeScratchDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'plat-consumer-'));
}
