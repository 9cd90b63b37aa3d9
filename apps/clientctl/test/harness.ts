import type { Io } from '../src/io.js';
import { run } from '../src/run.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Everything written to stdout as bytes, when the command wrote binary output (`trust resolve -o jks`). */
  bytes?: Buffer;
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
  const chunks: Buffer[] = [];
  let binary = false;
  const io: Io = {
    stdout: (t) => {
      stdout += t;
      chunks.push(Buffer.from(t, 'utf8'));
    },
    stdoutBytes: (b) => {
      binary = true;
      stdout += Buffer.from(b).toString('utf8');
      chunks.push(Buffer.from(b));
    },
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
  return { code, stdout, stderr, ...(binary ? { bytes: Buffer.concat(chunks) } : {}) };
}
