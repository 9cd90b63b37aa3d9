// The two published programs, @plat/apiserver and @plat/clientctl, as an operator gets them from
// `npm install @plat/apiserver @plat/clientctl` in an empty folder outside the workspace: packed
// with `npm pack`, extracted under node_modules/@plat/, their declared dependencies (and only
// those) linked to the copies the workspace installed (offline; better-sqlite3's native module
// is already built there), and their bins in node_modules/.bin, where `npx` finds them.
import fs from 'node:fs';
import path from 'node:path';
import { assertNoNodeModulesAbove, link, run, workspaceCopy, workspaceRoot } from './scratch-project.js';

export interface PublishedApp {
  /** Folder name under apps/ and the name of its bin. */
  dir: string;
  name: string;
  manifest: { name: string; bin: Record<string, string>; dependencies?: Record<string, string>; files?: string[] };
  tarball: string;
  /** Paths inside the tarball, relative to the package root. */
  files: string[];
}

export const publishedApps = ['apiserver', 'clientctl'];

/** Packs the apps into `scratch/tarballs` and installs them into `scratch/<operatorDir>`, answering that folder. */
export async function installApps(scratch: string, operatorDir = 'operator'): Promise<{ dir: string; apps: PublishedApp[] }> {
  assertNoNodeModulesAbove(scratch);
  for (const dir of publishedApps) {
    if (!fs.existsSync(path.join(workspaceRoot, 'apps', dir, 'dist', 'main.mjs'))) {
      throw new Error(`apps/${dir}/dist is missing: run \`npx nx run ${dir}:build\` (the Nx test target depends on it)`);
    }
  }
  const tarballs = path.join(scratch, 'tarballs');
  fs.mkdirSync(tarballs, { recursive: true });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', tarballs, ...publishedApps.map((dir) => `--workspace=apps/${dir}`)], {
    cwd: workspaceRoot,
    env: { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const reports = JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[];
  const operator = path.join(scratch, operatorDir);
  const modules = path.join(operator, 'node_modules');
  const apps: PublishedApp[] = [];
  for (const dir of publishedApps) {
    const manifest = JSON.parse(fs.readFileSync(path.join(workspaceRoot, 'apps', dir, 'package.json'), 'utf8')) as PublishedApp['manifest'];
    const report = reports.find((r) => r.name === manifest.name);
    if (!report) throw new Error(`npm pack did not report ${manifest.name}`);
    const tarball = path.join(tarballs, report.filename);
    const installDir = path.join(modules, manifest.name);
    fs.mkdirSync(installDir, { recursive: true });
    const untar = await run('tar', ['-xzf', tarball, '-C', installDir, '--strip-components=1'], { cwd: scratch });
    if (untar.code !== 0) throw new Error(`extracting ${tarball}: ${untar.stderr}`);
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      const copy = workspaceCopy(path.join(workspaceRoot, 'apps', dir), dep);
      if (!copy) throw new Error(`${manifest.name} declares ${dep}, which the workspace has not installed`);
      link(copy, path.join(installDir, 'node_modules', dep));
    }
    // npm links each bin into node_modules/.bin and makes its target executable.
    for (const [bin, target] of Object.entries(manifest.bin)) {
      const file = path.join(installDir, target);
      fs.chmodSync(file, 0o755);
      fs.mkdirSync(path.join(modules, '.bin'), { recursive: true });
      fs.symlinkSync(path.relative(path.join(modules, '.bin'), file), path.join(modules, '.bin', bin));
    }
    apps.push({ dir, name: manifest.name, manifest, tarball, files: report.files.map((f) => f.path) });
  }
  const dependencies = Object.fromEntries(apps.map((a) => [a.name, `file:${path.relative(operator, a.tarball)}`]));
  fs.writeFileSync(path.join(operator, 'package.json'), JSON.stringify({ name: 'plat-operator', private: true, dependencies }, null, 2));
  return { dir: operator, apps };
}
