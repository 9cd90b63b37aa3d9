// Bundles an app (apps/<name>/src/main.ts) with esbuild's JS API and the options of its Nx build
// target (project.json, and its esbuildConfig file when it has one), so end-to-end tests and
// benchmarks run the real binary even where `npm test` runs right after `npm ci` without a build.
//
// The output goes under apps/<name>/node_modules/.cache/: ignored by git and lint, and the
// bundle's external packages (better-sqlite3, etcd3) still resolve from the workspace.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const workspaceRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Builds apps/<app> into `outdir` (default apps/<app>/node_modules/.cache/plat-e2e) and returns
 * the path of its entry, `<outdir>/main.mjs`. Files are written beside and renamed, so a test
 * run may rebuild while another one is starting the previous bundle.
 */
export async function bundleApp(app, outdir = path.join(workspaceRoot, 'apps', app, 'node_modules', '.cache', 'plat-e2e')) {
  const appRoot = path.join(workspaceRoot, 'apps', app);
  const o = JSON.parse(fs.readFileSync(path.join(appRoot, 'project.json'), 'utf8')).targets.build.options;
  const fromFile = o.esbuildConfig ? (await import(path.join(workspaceRoot, o.esbuildConfig))).default : {};
  const result = await build({
    ...o.esbuildOptions,
    ...fromFile,
    write: false,
    absWorkingDir: workspaceRoot,
    entryPoints: { main: path.join(workspaceRoot, o.main) },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: o.external ?? [],
    sourcemap: true,
    tsconfig: path.join(workspaceRoot, o.tsConfig),
    logLevel: 'error',
  });
  for (const file of result.outputFiles) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const tmp = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, file.contents);
    fs.renameSync(tmp, file.path);
  }
  return path.join(outdir, 'main.mjs');
}
