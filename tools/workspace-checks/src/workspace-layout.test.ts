import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

// The workspace rules of DEVELOPERS.md, checked on the real tree: every package and app has its
// own package.json (name, version, exports/bin, types, publishing metadata), README, LICENSE,
// project.json with the four targets and a layer tag; and the module-boundary lint rule rejects
// an import of a higher layer.
const root = path.resolve(import.meta.dirname, '../../..');
const packages = ['api-model', 'x509', 'cel', 'config', 'storage', 'patch', 'auth', 'audit', 'egress', 'telemetry', 'server', 'controllers', 'client', 'trust', 'control-plane'];
const apps = ['apiserver', 'clientctl'];
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const rootPkg = readJson('package.json');
const license = fs.readFileSync(path.join(root, 'LICENSE'), 'utf8');

/** What npm and the registry show about where a package comes from, the same for every project. */
function expectPublishMetadata(pkg: Record<string, unknown>, dir: string) {
  expect(pkg.license).toBe('Apache-2.0');
  expect(fs.readFileSync(path.join(root, dir, 'LICENSE'), 'utf8')).toBe(license);
  expect(pkg.repository).toEqual({ ...rootPkg.repository, directory: dir });
  expect(pkg.homepage).toBe(`${rootPkg.homepage.replace(/#readme$/, '')}/tree/main/${dir}#readme`);
  expect(pkg.bugs).toEqual(rootPkg.bugs);
  expect(pkg.engines).toEqual(rootPkg.engines);
}

describe('workspace layout', () => {
  it.each(packages)('package %s has its manifest, README, targets and layer tag', (dir) => {
    const pkg = readJson(`packages/${dir}/package.json`);
    expect(pkg.name).toBe(`@plat/${dir}`);
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(pkg.type).toBe('module');
    expect(pkg.types).toBe('./dist/index.d.ts');
    expect(pkg.exports['.']).toMatchObject({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(fs.existsSync(path.join(root, `packages/${dir}/README.md`))).toBe(true);
    const project = readJson(`packages/${dir}/project.json`);
    expect(Object.keys(project.targets)).toEqual(expect.arrayContaining(['build', 'test', 'lint', 'typecheck']));
    expect(project.tags.filter((t: string) => t.startsWith('layer:'))).toHaveLength(1);
  });

  it.each(packages)('package %s is publishable: license, public access, origin, side effects, files', (dir) => {
    const pkg = readJson(`packages/${dir}/package.json`);
    expectPublishMetadata(pkg, `packages/${dir}`);
    expect(pkg.private).toBeUndefined();
    // A scoped package publishes as restricted unless told otherwise.
    expect(pkg.publishConfig).toEqual({ access: 'public' });
    expect(typeof pkg.sideEffects === 'boolean' || Array.isArray(pkg.sideEffects)).toBe(true);
    // Source maps and the @plat/source condition point into src/, so src/ ships (without tests).
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'src', '!src/**/*.test.ts', 'LICENSE', 'README.md']));
  });

  it.each(apps)('app %s is a workspace bin with the four targets', (dir) => {
    const pkg = readJson(`apps/${dir}/package.json`);
    expect(pkg.name).toBe(`@plat/${dir}`);
    expect(pkg.bin[dir]).toBe(`./bin/${dir}.mjs`);
    expect(fs.existsSync(path.join(root, `apps/${dir}/bin/${dir}.mjs`))).toBe(true);
    const project = readJson(`apps/${dir}/project.json`);
    expect(project.targets.build.executor).toBe('@nx/esbuild:esbuild');
    expect(Object.keys(project.targets)).toEqual(expect.arrayContaining(['build', 'test', 'lint', 'typecheck']));
    expect(project.tags).toContain('layer:8-app');
    expectPublishMetadata(pkg, `apps/${dir}`);
  });
});

describe('module boundaries', () => {
  const eslint = new ESLint({ cwd: root });
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result!.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  };

  it('fails lint when a lower layer imports a higher one', async () => {
    // Higher layers already depend on the lower ones, so Nx reports these as cycles first.
    for (const [file, target] of [
      ['packages/x509/src/probe.ts', '@plat/server'],
      ['packages/api-model/src/probe.ts', '@plat/storage'],
    ]) {
      expect(await lint(file!, `export * from '${target}';\n`)).toEqual([
        expect.stringMatching(/cannot depend on|Circular dependency/),
      ]);
    }
  });

  it('fails lint on a sideways import between unrelated projects of one layer (tags alone)', async () => {
    expect(await lint('packages/x509/src/probe.ts', "export * from '@plat/cel';\n")).toEqual([
      expect.stringContaining('A project tagged with "layer:0-base" cannot depend on any libs with tags'),
    ]);
    expect(await lint('packages/storage/src/probe.ts', "export * from '@plat/patch';\n")).toEqual([
      expect.stringContaining('A project tagged with "layer:2-infra" can only depend on libs tagged with'),
    ]);
    // server and trust share layer 4 under two tags: neither sees the other.
    expect(await lint('packages/server/src/probe.ts', "export * from '@plat/trust';\n")).toEqual([
      expect.stringContaining('A project tagged with "layer:4-server" can only depend on libs tagged with'),
    ]);
    expect(await lint('packages/trust/src/probe.ts', "export * from '@plat/server';\n")).toEqual([
      expect.stringContaining('A project tagged with "layer:4-trust" can only depend on libs tagged with'),
    ]);
  });

  it('accepts imports that point down the layers', async () => {
    expect(await lint('packages/server/src/probe.ts', "export * from '@plat/api-model';\n")).toEqual([]);
    expect(await lint('packages/api-model/src/probe.ts', "export * from '@plat/x509';\n")).toEqual([]);
    expect(await lint('packages/trust/src/probe.ts', "export * from '@plat/client';\n")).toEqual([]);
  });
});
