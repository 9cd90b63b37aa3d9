import type { Io } from '../src/io.js';
import { run } from '../src/run.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs clientctl in-process with captured output and its own environment. */
export async function clientctl(args: string[], env: Record<string, string | undefined> = {}, stdin = ''): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readStdin: async () => stdin,
    env: { HOME: env.HOME ?? '/nonexistent-home', ...env },
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}
