// Jest global setup: bundles apps/apiserver/src/main.ts with esbuild's JS API, using the options
// of the Nx build target (project.json), so that end-to-end tests run the real binary even in CI,
// where `npm test` runs right after `npm ci` without a build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspaceRoot = path.resolve(appRoot, '../..');

export default async function globalSetup() {
  const project = JSON.parse(fs.readFileSync(path.join(appRoot, 'project.json'), 'utf8'));
  const o = project.targets.build.options;
  // Under node_modules/.cache: ignored by git and lint, and the bundle's external packages
  // (better-sqlite3, etcd3) still resolve from the workspace's node_modules.
  const outfile = path.join(appRoot, 'node_modules', '.cache', 'plat-e2e', 'main.mjs');
  const result = await build({
    write: false,
    absWorkingDir: workspaceRoot,
    entryPoints: [path.join(workspaceRoot, o.main)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: o.esbuildOptions.target,
    conditions: o.esbuildOptions.conditions,
    banner: o.esbuildOptions.banner,
    external: o.external,
    sourcemap: true,
    tsconfig: path.join(workspaceRoot, o.tsConfig),
    logLevel: 'error',
  });
  // Write beside, then rename: another test run may be starting the previous bundle right now.
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  for (const file of result.outputFiles) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, file.contents);
    fs.renameSync(tmp, file.path);
  }
  process.env.PLAT_APISERVER_BUNDLE = outfile;
}
