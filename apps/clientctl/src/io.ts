/** Where a command reads and writes; tests pass their own. */
export interface Io {
  stdout(text: string): void;
  /** Binary output (`trust resolve -o jks`); written as is. */
  stdoutBytes(bytes: Uint8Array): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  env: Record<string, string | undefined>;
  /** stdout when it is a terminal: `trust inspect --timeline` draws to its width, in colour unless NO_COLOR is set. */
  terminal?: { columns: number };
  /** Asks a long-running command (`trust sync`) to stop as SIGTERM does; tests pass one, processes get signals. */
  stop?: AbortSignal;
}

export function processIo(): Io {
  return {
    stdout: (t) => void process.stdout.write(t),
    stdoutBytes: (b) => void process.stdout.write(b),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    ...(process.stdout.isTTY ? { terminal: { columns: process.stdout.columns } } : {}),
  };
}
