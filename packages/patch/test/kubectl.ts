import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = process.env.PLAT_KUBECTL ?? '/usr/bin/kubectl';
export const kubectlAvailable = existsSync(KUBECTL);

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `kubectl patch --local` for many cases, two at a time (the machine is shared), in a
 * private directory with a dummy kubeconfig pointing at a closed port: --local needs no server,
 * and this keeps a user's real configuration out of the comparison.
 */
export async function kubectlPatchLocal(
  cases: readonly { object: unknown; type: string; patch: unknown }[],
): Promise<KubectlResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-patch-kubectl-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: none, user: {}}]',
        'contexts: [{name: none, context: {cluster: none, user: none}}]',
        'current-context: none',
        '',
      ].join('\n'),
    );
    const results: KubectlResult[] = new Array(cases.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const i = next++;
        const file = join(dir, `object-${i}.json`);
        await writeFile(file, JSON.stringify(cases[i].object));
        results[i] = await run(
          ['patch', '--local', '-f', file, '--type', cases[i].type, '-p', JSON.stringify(cases[i].patch), '-o', 'json'],
          { ...process.env, KUBECONFIG: kubeconfig, HOME: dir },
        );
      }
    };
    await Promise.all([worker(), worker()]);
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(KUBECTL, args, { env, timeout: 20_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
