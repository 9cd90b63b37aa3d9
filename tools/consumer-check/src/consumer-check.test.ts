import fs from 'node:fs';
import path from 'node:path';
import {
  createConsumerApp,
  entryPoints,
  listExamples,
  makeScratchDir,
  packAndInstall,
  publishablePackages,
  run,
  workspaceRoot,
  type PackedPackage,
} from './scratch-project.js';
import { publishedApps } from './installed-apps.js';

// Every @plat package as an outside user gets it: packed with `npm pack`, installed into a
// project outside the workspace where it resolves only its declared dependencies, imported with
// import() and require(), and its README examples type-checked (strict, NodeNext, no
// esModuleInterop, no skipLibCheck) and run. See scratch-project.ts for the layout. Last, the
// release configuration versions every package (a dry run, offline).

const packages = publishablePackages();
const examples = listExamples(packages);
const { importedPackages } = (await import(path.join(workspaceRoot, 'tools/readme-examples/readme-examples.mjs'))) as {
  importedPackages: (text: string) => string[];
};

/**
 * Heavy modules a package must not load until the feature that needs them is used. An exercise is
 * a module (`export async function exercise(m)`, m being the imported package) run after import.
 */
const lazy: Record<string, { exercise?: string; notLoaded: string[] }> = {
  '@plat/storage': {
    // Memory and SQLite stores, opened, written and closed: etcd3 and its gRPC stack stay unloaded.
    exercise: `import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
export async function exercise(m) {
  const memory = await m.openStorage({ backend: 'memory' });
  await memory.close();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-storage-'));
  const sqlite = await m.openStorage({ backend: 'sqlite', dataDir });
  await sqlite.create('/g/r/x', { metadata: { name: 'x' } });
  await sqlite.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
`,
    notLoaded: ['etcd3', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'],
  },
  '@plat/egress': {
    // A Direct dial: gRPC stays unloaded.
    exercise: `import net from 'node:net';
export async function exercise(m) {
  const server = net.createServer((s) => s.end()).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const socket = await new m.EgressSelector(undefined).dialer('cluster').dial('127.0.0.1', server.address().port);
  socket.destroy();
  server.close();
}
`,
    notLoaded: ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'],
  },
  '@plat/telemetry': { notLoaded: ['@opentelemetry/sdk-node', '@grpc/grpc-js'] },
  '@plat/server': { notLoaded: ['etcd3', 'better-sqlite3', '@grpc/grpc-js', '@opentelemetry/sdk-node'] },
  '@plat/registry': { notLoaded: ['etcd3', 'better-sqlite3', '@grpc/grpc-js', '@opentelemetry/sdk-node'] },
};

/**
 * Errors inside third-party declarations that every consumer with these compiler options gets,
 * whatever our packages do. Each is reported on the console; any other diagnostic fails.
 */
const upstreamErrors = [
  {
    file: /\/node_modules\/zod\/v4\/locales\/index\.d\.cts$/,
    code: 'TS1259',
    why: 'zod 4 re-exports its `export =` locale modules through default imports, which need allowSyntheticDefaultImports (colinhacks/zod#5497)',
  },
];

/** tsc's diagnostics, one entry per error (continuation lines kept with their error). */
function diagnostics(output: string): { file: string; code: string; text: string }[] {
  const out: { file: string; code: string; text: string }[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?)\(\d+,\d+\): error (TS\d+): /.exec(line);
    if (m) out.push({ file: m[1]!, code: m[2]!, text: line });
    else if (line.trim() && out.length) out[out.length - 1]!.text += `\n${line}`;
  }
  return out;
}

/**
 * Imports a package's entry points (ESM and CommonJS) in a fresh process, runs an exercise module
 * if given (`export async function exercise(m)`, m being the package's main entry), and reports
 * the CommonJS packages the process loaded.
 */
const importProgram = `
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const [exercise, ...specifiers] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const keys = (o) => Object.keys(o).filter((k) => k !== 'module.exports').sort().join(',');
let m;
for (const specifier of specifiers) {
  const esm = await import(specifier);
  if (keys(require(specifier)) !== keys(esm)) throw new Error(specifier + ': require() and import() give different exports');
  m ??= esm;
}
if (exercise) await (await import(pathToFileURL(exercise).href)).exercise(m);
const loaded = new Set();
for (const file of Object.keys(require.cache)) {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) continue;
  const parts = file.slice(at + 14).split('/');
  loaded.add(parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0]);
}
console.log(JSON.stringify({ exports: Object.keys(m).length, loaded: [...loaded].sort() }));
`;

let scratch: string;
let packed: PackedPackage[];
let appDir: string;
let compiled: Promise<{ code: number; stdout: string; stderr: string }>;

beforeAll(async () => {
  scratch = makeScratchDir();
  packed = await packAndInstall(scratch, packages);
  const thirdParty = new Set<string>();
  for (const { pkg, file } of examples) {
    for (const name of importedPackages(fs.readFileSync(path.join(workspaceRoot, 'packages', pkg.dir, file), 'utf8'))) {
      if (!name.startsWith('@plat/')) thirdParty.add(name);
    }
  }
  appDir = createConsumerApp(scratch, packed, examples, [...thirdParty].sort());
  fs.writeFileSync(path.join(appDir, 'import-package.mjs'), importProgram);
  compiled = run(process.execPath, [path.join(workspaceRoot, 'node_modules/typescript/bin/tsc'), '-p', appDir], { cwd: appDir, timeoutMs: 110_000 });
}, 120_000);

afterAll(() => {
  // PLAT_CONSUMER_KEEP=1 keeps the scratch project for a look at what failed.
  if (process.env.PLAT_CONSUMER_KEEP) console.log(`consumer project kept in ${scratch}`);
  else if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe.each(packages.map((p) => [p.name, p] as const))('%s as a consumer installs it', (name, pkg) => {
  const packedOf = () => packed.find((p) => p.name === name)!;

  it('the tarball holds what exports and source maps point at, and no tests', () => {
    const { files, installDir } = packedOf();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'src/index.ts']));
    expect(files.filter((f) => /\.test\.ts$|\.tsbuildinfo$/.test(f))).toEqual([]);
    // The files the exports map points at: its values (its keys, `./yaml`, are subpaths, not files).
    const targets: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === 'string') targets.push(v);
      else if (v && typeof v === 'object') Object.values(v).forEach(collect);
    };
    collect(pkg.manifest.exports);
    for (const target of targets.filter((t) => t.startsWith('./'))) expect(files).toContain(target.slice(2));
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const { sources } = JSON.parse(fs.readFileSync(path.join(installDir, map), 'utf8')) as { sources: string[] };
      for (const source of sources) expect(files).toContain(path.posix.join(path.posix.dirname(map), source));
    }
  });

  it('imports (each entry point) with import() and require(), resolving only its declared dependencies', async () => {
    const expectations = lazy[name];
    const exercise = expectations?.exercise ? path.join(appDir, `exercise-${pkg.dir}.mjs`) : '';
    if (exercise) fs.writeFileSync(exercise, expectations!.exercise!);
    const r = await run(process.execPath, ['import-package.mjs', exercise, ...entryPoints(pkg)], { cwd: appDir, timeoutMs: 30_000 });
    expect({ code: r.code, stderr: r.code ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as { exports: number; loaded: string[] };
    expect(report.exports).toBeGreaterThan(0);
    if (expectations) expect(report.loaded.filter((p) => expectations.notLoaded.includes(p))).toEqual([]);
  });
});

describe('README examples', () => {
  it("and every entry point's types type-check as a strict NodeNext project without esModuleInterop and skipLibCheck", async () => {
    const r = await compiled;
    const found = diagnostics(r.stdout + r.stderr);
    const upstream = (d: { file: string; code: string }) => upstreamErrors.find((u) => u.code === d.code && u.file.test(path.resolve(appDir, d.file)));
    for (const u of upstreamErrors) {
      const count = found.filter((d) => upstream(d) === u).length;
      if (count) console.log(`ignored: ${count} ${u.code} errors: ${u.why}`);
    }
    expect(found.filter((d) => !upstream(d)).map((d) => d.text)).toEqual([]);
    if (!found.length) expect(r.code).toBe(0);
  });

  it.each(packages.map((p) => [p.name, p.dir] as const))('%s has at least one', (_name, dir) => {
    expect(examples.filter((e) => e.pkg.dir === dir).length).toBeGreaterThan(0);
  });

  it.each(examples.map((e) => [`packages/${e.pkg.dir}/${e.file}`, e.program] as const))('%s runs as written', async (_file, program) => {
    await compiled;
    const r = await run(process.execPath, [program], { cwd: appDir, timeoutMs: 60_000 });
    expect({ code: r.code, stderr: r.code ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
  });
});

describe('release', () => {
  it('npm run release -- --dry-run versions every package (offline; publishing previews what npm pack packs above)', async () => {
    const r = await run(process.execPath, ['tools/release/release.mjs', '--dry-run', '--skip-publish'], {
      cwd: workspaceRoot,
      timeoutMs: 110_000,
      env: { FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    expect({ code: r.code, stderr: r.code ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
    const output = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    for (const pkg of packages) expect(output).toContain(`Running release version for project: ${pkg.dir}`);
    // The published programs (apps.test.ts installs their tarballs) are versioned with them.
    for (const app of publishedApps) expect(output).toContain(`Running release version for project: ${app}`);
  });
});
