import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bash, buildBundles, clientctlShim, startApiserver, waitUntil, walkthroughBlocks, type ApiserverProcess } from '../test/processes.js';

// docs/authentication-authorization.md, "Let a team publish bundles for its signer" and "Read
// bundles through a service account", run block by block with bash (the real kubectl and
// clientctl) against the apiserver binary started with the walk-through's token file.
// `run` blocks must succeed; `check` blocks are retried until they do (an RBAC change reaches the
// authorizer through a watch, a moment after it is written); `denied` blocks must fail with the
// error their comment shows.
const hasKubectl = existsSync('/usr/bin/kubectl');
let dir: string;
let apiserver: ApiserverProcess;
let shimDir: string;




/** The token file the environment block shows, from its comment lines. */
function tokenFile(environment: string): string {
  return environment
    .split('\n')
    .filter((l) => l.startsWith('# '))
    .map((l) => `${l.slice(2)}\n`)
    .join('');
}

if (!hasKubectl) console.warn('RBAC walk-through skipped: /usr/bin/kubectl is not installed');

(hasKubectl ? describe : describe.skip)('RBAC walk-through (docs/authentication-authorization.md)', () => {
  const blocks = walkthroughBlocks('authentication-authorization.md', '### Let a team publish bundles for its signer', '### Escalation rules');
  let work: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'clientctl-rbac-walkthrough-'));
    work = mkdtempSync(path.join(dir, 'work-'));
    const bundles = await buildBundles();
    shimDir = clientctlShim(dir, bundles.clientctl);
    const tokens = path.join(work, 'tokens.csv');
    writeFileSync(tokens, tokenFile(blocks[0]!.code));
    apiserver = await startApiserver(bundles.apiserver, path.join(dir, 'data'), 0, [`--token-auth-file=${tokens}`]);
  }, 120_000);
  afterAll(async () => {
    await apiserver?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written: alice publishes for example.com, bob and other signers are refused, bob reads as a service account', async () => {
    expect(blocks.map((b) => b.mark)).toEqual(['environment', 'run', 'run', 'check', 'run', 'denied', 'denied', 'denied', 'run', 'denied', 'check']);
    expect(blocks[0]!.code).toContain('export KUBECONFIG=.plat/admin.conf');
    const env = { PATH: `${shimDir}:${process.env.PATH}`, HOME: dir, KUBECONFIG: apiserver.kubeconfig };
    for (const block of blocks.slice(1)) {
      const failure = (r: { code: number; stdout: string; stderr: string }) => `${block.mark} block (exit ${r.code}):\n${block.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
      if (block.mark === 'run') {
        const r = await bash(block.code, work, env);
        if (r.code !== 0) throw new Error(failure(r));
      } else if (block.mark === 'check') {
        let last = { code: -1, stdout: '', stderr: '' };
        await waitUntil(`the check block to pass: ${block.code}`, async () => {
          last = await bash(block.code, work, env);
          return last.code === 0;
        }).catch(() => {
          throw new Error(failure(last));
        });
        // The outputs the comments show.
        for (const line of block.code.split('\n').filter((l) => l.startsWith('# '))) {
          expect(last.stdout.replace(/\s+/g, ' ')).toContain(line.slice(2).replace(/\s+/g, ' '));
        }
      } else if (block.mark === 'denied') {
        const r = await bash(block.code, work, env);
        const expected = block.code.split('\n').find((l) => l.startsWith('# '))!.slice(2);
        if (r.code === 0) throw new Error(failure(r));
        expect(r.stderr.trim().split('\n').pop()).toBe(expected);
      }
    }
    // What the blocks did, seen by the admin: alice's bundle with her last changes.
    const ctb = await bash('kubectl get ctb example.com:foo:2025 -o jsonpath={.metadata.labels}', work, env);
    expect(JSON.parse(ctb.stdout)).toEqual({ team: 'a', stage: 'live' });
  }, 180_000);
});
