import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { bash, expectRanAsShown, startBlock, walkthroughBlocks, type BackgroundProcess } from './doc-walkthrough.js';
import { installApps, publishedApps, type PublishedApp } from './installed-apps.js';
import { makeScratchDir, workspaceRoot } from './scratch-project.js';

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

  it('"Upgrade": migrate-storage on the stopped server\'s data dir, twice, the second run rewriting nothing', async () => {
    const blocks = walkthroughBlocks('operations.md', '## Upgrade');
    expect(blocks.map((b) => b.mark)).toEqual(['run']);
    expect(server).toBeUndefined();
    expectRanAsShown(blocks[0]!, await bash(blocks[0]!.code, operator, env()));
  }, 120_000);
});

const systemdAnalyze = '/usr/bin/systemd-analyze';
if (!fs.existsSync(systemdAnalyze)) console.warn(`systemd units: systemd-analyze verify skipped: ${systemdAnalyze} is not installed`);
const hasCurl = fs.existsSync('/usr/bin/curl');
if (!hasCurl) console.warn("systemd units: ExecStart lines not run: /usr/bin/curl (the server unit's readiness check) is not installed");

/** A unit file of deploy/systemd with the installed bins in place of /usr/local/bin. */
function unitText(file: string, port: number): string {
  return fs
    .readFileSync(path.join(workspaceRoot, 'deploy/systemd', file), 'utf8')
    .replace(/\/usr\/local\/bin\/(apiserver|clientctl)\b/g, (_m, bin: string) => path.join(operator, 'node_modules/.bin', bin))
    .replaceAll('6443', String(port));
}

/** A unit's `KEY=` command line as a shell runs it: systemd's `$$` is a literal `$`, `%i` the instance; `${VAR}` and `$VAR` mean what they mean to the shell. */
function commandLine(unit: string, key: string, instance = ''): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  if (!line) throw new Error(`no ${key}= line`);
  return line.slice(key.length + 1).replaceAll('%i', instance).replaceAll('$$', '$');
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe('deploy/systemd units', () => {
  const units = ['plat-apiserver.service', 'plat-trust-sync@.service'];

  (fs.existsSync(systemdAnalyze) ? it : it.skip)('pass systemd-analyze verify (with the installed bins)', async () => {
    const dir = fs.mkdtempSync(path.join(scratch, 'units-'));
    fs.writeFileSync(path.join(dir, 'plat-apiserver.service'), unitText('plat-apiserver.service', 6443));
    fs.writeFileSync(path.join(dir, 'plat-trust-sync@dev-ca.service'), unitText('plat-trust-sync@.service', 6443));
    const r = await bash(`${systemdAnalyze} verify --man=no ./plat-apiserver.service ./plat-trust-sync@dev-ca.service`, dir, { PATH: process.env.PATH });
    expect({ code: r.code, stderr: r.stderr.replace(/^.*bash\.bashrc.*\n/m, '') }).toEqual({ code: 0, stderr: '' });
  });

  (hasCurl ? it : it.skip)('run their ExecStart lines as written: the server starts in its state directory, ExecStartPost returns once /readyz answers, trust sync writes the bundle', async () => {
    const port = await freePort();
    const apiserverUnit = unitText(units[0]!, port);
    const state = fs.mkdtempSync(path.join(scratch, 'state-apiserver-'));
    const unitEnv = { ...env(), STATE_DIRECTORY: state, APISERVER_ARGS: '' };
    const started = startBlock(`exec ${commandLine(apiserverUnit, 'ExecStart')}`, operator, unitEnv, /is serving at https:/);
    const post = await bash(commandLine(apiserverUnit, 'ExecStartPost'), operator, unitEnv, 60_000);
    expect(post.code).toBe(0);
    const apiserver = await started;
    try {
      const kubeconfig = path.join(state, 'admin.conf');
      expect(apiserver.output()).toContain(`is serving at https://127.0.0.1:${port}`);
      const create = await bash(
        `printf 'apiVersion: certificates.plat.io/v1alpha1\\nkind: ClusterTrustBundle\\nmetadata:\\n  name: dev-ca\\nspec:\\n  trustBundle: |\\n%s\\n' "$(sed 's/^/    /' ${state}/pki/ca.crt)" | npx clientctl --kubeconfig ${kubeconfig} create -f -`,
        operator,
        env(),
      );
      expect({ code: create.code, stdout: create.stdout.trim() }).toEqual({ code: 0, stdout: 'clustertrustbundle.certificates.plat.io/dev-ca created' });

      const syncUnit = unitText(units[1]!, port);
      const conf = fs.mkdtempSync(path.join(scratch, 'conf-'));
      fs.copyFileSync(kubeconfig, path.join(conf, 'dev-ca.kubeconfig'));
      const syncState = fs.mkdtempSync(path.join(scratch, 'state-trust-'));
      const sync = await startBlock(
        `exec ${commandLine(syncUnit, 'ExecStart', 'dev-ca')}`,
        operator,
        { ...env(), SELECTION: 'dev-ca', CONFIGURATION_DIRECTORY: conf, STATE_DIRECTORY: syncState },
        /wrote /,
      );
      await sync.stop();
      const pem = fs.readFileSync(path.join(syncState, 'bundle.pem'), 'utf8');
      expect(pem.trim()).toBe(fs.readFileSync(path.join(state, 'pki/ca.crt'), 'utf8').trim());
      expect(fs.statSync(path.join(syncState, 'bundle.pem')).mode & 0o777).toBe(0o644);
    } finally {
      await apiserver.stop();
    }
    expect(apiserver.output()).toContain('Shut down cleanly');
  }, 120_000);
});
