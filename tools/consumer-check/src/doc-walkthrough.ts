// Command blocks of a docs page as an operator runs them: every ```sh block that follows a
// `<!-- walkthrough: MARK -->` line, in order, run with bash -euo pipefail. Lines of a block that
// start with `# ` are the output it shows, checked against what the block printed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { workspaceRoot } from './scratch-project.js';

export interface WalkthroughBlock {
  mark: string;
  code: string;
}

/** The marked blocks of `docs/<file>` between the heading `from` and the next `## ` heading. */
export function walkthroughBlocks(file: string, from: string): WalkthroughBlock[] {
  const text = fs.readFileSync(path.join(workspaceRoot, 'docs', file), 'utf8');
  const start = text.indexOf(`\n${from}\n`);
  if (start < 0) throw new Error(`docs/${file} has no heading ${from}`);
  const next = text.indexOf('\n## ', start + from.length + 1);
  const section = text.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/<!-- walkthrough: ([^>]+?) -->\n```sh\n([\s\S]*?)```/g)].map((m) => ({ mark: m[1]!, code: m[2]! }));
}

/** The output lines a block shows (its `# ` lines), whitespace-normalised. */
export function shownOutput(code: string): string[] {
  return code
    .split('\n')
    .filter((l) => l.startsWith('# '))
    .map((l) => l.slice(2).replace(/\s+/g, ' ').trim());
}

export interface BashResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a block with bash -euo pipefail (at most `timeoutMs`). */
export function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<BashResult> {
  return new Promise((resolve) => {
    execFile('/bin/bash', ['-euo', 'pipefail', '-c', script], { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Fails with the block, its exit code and output unless it exited 0 and printed each line it
 * shows (as a terminal shows them: on stdout or stderr) at the start of a line.
 */
export function expectRanAsShown(block: WalkthroughBlock, r: BashResult): void {
  const failure = (why: string) => new Error(`${why}:\n${block.code}\nexit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  if (r.code !== 0) throw failure('the block failed');
  const printed = `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
  for (const line of shownOutput(block.code)) {
    if (!printed.some((p) => p.startsWith(line))) throw failure(`the block did not print ${JSON.stringify(line)}`);
  }
}

export interface BackgroundProcess {
  child: ChildProcess;
  output(): string;
  /**
   * SIGTERM to its process group (npx and the program), then waits until every process of the
   * group has exited (npm exits on the signal at once; the program drains first).
   */
  stop(): Promise<void>;
}

/**
 * Starts a long-running block (a server) with bash in its own process group and waits until its
 * output matches `ready`.
 */
export async function startBlock(script: string, cwd: string, env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 60_000): Promise<BackgroundProcess> {
  const child = spawn('/bin/bash', ['-euo', 'pipefail', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      signalGroup('SIGKILL');
      reject(new Error(`${script} was not ready within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      if (!ready.test(out)) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    }, 25);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    child,
    output: () => out,
    async stop() {
      signalGroup('SIGTERM');
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          process.kill(-child.pid!, 0);
        } catch {
          return;
        }
        if (Date.now() > deadline) signalGroup('SIGKILL');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
