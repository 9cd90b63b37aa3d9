import { writeSync } from 'node:fs';

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

/**
 * Writes to stdout with fs.writeSync, as long as that works: creating process.stdout loads Node's
 * stream modules, a good part of `clientctl patch --local`'s start-up, and for the files, pipes
 * and terminals a CLI writes to, Node's stdout writes synchronously on Linux anyway. On the first
 * failure (EAGAIN from a non-blocking pipe, EPIPE...) the rest, and every later write, goes through
 * process.stdout as before, so errors surface exactly as they did.
 */
function stdoutWriter(): { write(data: string | Uint8Array): void; usedStream(): boolean } {
  let useStream = false;
  const write = (data: string | Uint8Array): void => {
    if (!useStream) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
        return;
      } catch {
        useStream = true;
        data = bytes.subarray(done);
      }
    }
    process.stdout.write(data);
  };
  return { write, usedStream: () => useStream };
}

/** The process's Io, and whether the process may end at once when the command returns. */
export interface ProcessIo extends Io {
  /**
   * True when nothing written can still be waiting in a stream: every stdout write went out with
   * fs.writeSync and stderr, if used, holds nothing unwritten. Then the command line ends with
   * process.exit, which skips tearing down the V8 heap (a few ms of CPU at every start; see
   * docs/performance.md, "Single executable").
   */
  drained(): boolean;
}

export function processIo(): ProcessIo {
  const stdout = stdoutWriter();
  let usedStderr = false;
  return {
    stdout: (t) => stdout.write(t),
    stdoutBytes: (b) => stdout.write(b),
    stderr: (t) => {
      usedStderr = true;
      process.stderr.write(t);
    },
    drained: () => !stdout.usedStream() && (!usedStderr || process.stderr.writableLength === 0),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    // Asked only by the commands that draw (trust inspect --timeline), so others never create process.stdout.
    get terminal() {
      return process.stdout.isTTY ? { columns: process.stdout.columns } : undefined;
    },
  };
}
