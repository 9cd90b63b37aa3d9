import type { Io } from '../src/io.js';
import { run } from '../src/run.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs clientctl in-process with captured output and its own environment. For long-running
 * commands, `stop` plays SIGTERM and `onStderr` sees the log as it is written.
 */
export async function clientctl(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin = '',
  options: { stop?: AbortSignal; onStderr?: (text: string) => void; terminal?: { columns: number } } = {},
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => {
      stderr += t;
      options.onStderr?.(t);
    },
    readStdin: async () => stdin,
    env: { HOME: env.HOME ?? '/nonexistent-home', ...env },
    stop: options.stop,
    ...(options.terminal ? { terminal: options.terminal } : {}),
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}
