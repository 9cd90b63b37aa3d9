import { spawn, spawnSync } from 'node:child_process';

/** Whether a system tool the tests read our files with is installed; prints why a test skips when not. */
export function hasTool(name: string): boolean {
  const found = spawnSync('/bin/sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
  if (!found) console.warn(`${name} is not installed (tools/install-system-packages.sh installs it): skipping the tests that read with it`);
  return found;
}

/** Runs a program to its end; resolves with its exit code and output. */
export function run(cmd: string, args: string[], opts: { input?: string; cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** The aliases `keytool -list` prints, one per `<alias>, <date>, trustedCertEntry,` line. */
export function keytoolAliases(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.includes(', trustedCertEntry,'))
    .map((l) => l.slice(0, l.search(/, [A-Z][a-z]{2} \d{1,2}, \d{4}, trustedCertEntry,/)));
}
