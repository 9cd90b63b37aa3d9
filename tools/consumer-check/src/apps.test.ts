import fs from 'node:fs';
import path from 'node:path';
import { bash, expectRanAsShown, startBlock, walkthroughBlocks, type BackgroundProcess } from './doc-walkthrough.js';
import { installApps, publishedApps, type PublishedApp } from './installed-apps.js';
import { makeScratchDir } from './scratch-project.js';

// @plat/apiserver and @plat/clientctl as an operator installs them: packed, installed into an
// empty folder outside the workspace with only their declared dependencies, and driven by the
// command blocks of docs/operations.md, "Install", as written (npx, kubectl; the server on a
// free port instead of 6443, since tests run side by side).
const hasKubectl = fs.existsSync('/usr/bin/kubectl');
if (!hasKubectl) console.warn('operations.md "Install" walk-through skipped: /usr/bin/kubectl is not installed');

let scratch: string;
let operator: string;
let apps: PublishedApp[];
let server: BackgroundProcess | undefined;

/** What a shell in the operator's folder has: npx runs offline (the bins are installed already). */
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: scratch,
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
});

beforeAll(async () => {
  scratch = makeScratchDir();
  ({ dir: operator, apps } = await installApps(scratch));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (process.env.PLAT_CONSUMER_KEEP) console.log(`operator folder kept in ${scratch}`);
  else if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe.each(publishedApps)('@plat/%s as published', (dir) => {
  const app = () => apps.find((a) => a.dir === dir)!;

  it('is public, ships its bin and bundle only, and depends on what the bundle leaves external', () => {
    const { manifest, files } = app();
    expect((manifest as { private?: boolean }).private).toBeUndefined();
    expect(manifest.bin).toEqual({ [dir]: `./bin/${dir}.mjs` });
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', `bin/${dir}.mjs`, 'dist/main.mjs']));
    expect(files.filter((f) => !/^(package\.json|README\.md|LICENSE|bin\/[\w-]+\.mjs|dist\/(chunks\/)?[\w-]+\.mjs)$/.test(f))).toEqual([]);
    const project = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../apps', dir, 'project.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual([...(project.targets.build.options.external ?? [])].sort());
  });
});

(hasKubectl ? describe : describe.skip)('docs/operations.md runs as written against the installed packages', () => {
  const serve = () => {
    const block = walkthroughBlocks('operations.md', '## Install').find((b) => b.mark === 'serve')!;
    expect(block.code).toContain('--secure-port 6443');
    return startBlock(`exec ${block.code.trim().replace('--secure-port 6443', '--secure-port 0')}`, operator, env(), /is serving at https:/);
  };

  it('"Install": installs, starts the server on a fresh data dir, and creates, gets and inspects a bundle with npx clientctl and kubectl', async () => {
    const blocks = walkthroughBlocks('operations.md', '## Install');
    expect(blocks.map((b) => b.mark)).toEqual(['install', 'run', 'serve', 'run']);
    // The install block names exactly the packed packages, which installApps laid out as npm does.
    expect(blocks[0]!.code.trim()).toBe(`npm install ${apps.map((a) => a.name).join(' ')}`);
    expectRanAsShown(blocks[1]!, await bash(blocks[1]!.code, operator, env()));
    server = await serve();
    expectRanAsShown(blocks[3]!, await bash(blocks[3]!.code, operator, env()));
  }, 120_000);

  it('"Back up and restore": a snapshot of the serving server, refused while it serves, restored after it stops, served again', async () => {
    const blocks = walkthroughBlocks('operations.md', '## Back up and restore');
    expect(blocks.map((b) => b.mark)).toEqual(['run', 'run', 'stopped', 'restarted']);
    expect(server).toBeDefined();
    const kubeconfig = { KUBECONFIG: path.join(operator, 'plat-data/admin.conf') };
    for (const block of blocks) {
      if (block.mark === 'stopped') {
        await server!.stop();
        expect(server!.output()).toContain('Shut down cleanly');
        server = undefined;
      }
      if (block.mark === 'restarted') server = await serve();
      expectRanAsShown(block, await bash(block.code, operator, { ...env(), ...kubeconfig }));
    }
    await server!.stop();
    server = undefined;
  }, 120_000);
});
