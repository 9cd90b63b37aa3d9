import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { klogWarning } from './context.js';
import { CommandError } from './errors.js';
import type { Io } from './io.js';

const goOnly = ['goroutine', 'threadcreate', 'block', 'mutex'];

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

/**
 * `--profile`: cpu writes a V8 .cpuprofile (open it in Chrome DevTools), heap a V8 heap snapshot.
 * The Go runtime profiles (goroutine, threadcreate, block, mutex) have no Node.js counterpart: they
 * are accepted for compatibility and explained on stderr.
 */
export async function startProfile(name: string, output: string, io: Io): Promise<() => Promise<void>> {
  if (goOnly.includes(name)) {
    io.stderr(klogWarning('profiling.go:1', `profile '${name}' is a Go runtime profile with no Node.js equivalent; no profile is written (use cpu or heap)`));
    return async () => undefined;
  }
  if (name !== 'cpu' && name !== 'heap') throw new CommandError(`unknown profile '${name}'`);
  const session = new Session();
  session.connect();
  if (name === 'cpu') {
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
    return async () => {
      const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
      writeFileSync(output, JSON.stringify(profile));
      session.disconnect();
    };
  }
  return async () => {
    const chunks: string[] = [];
    session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push((m.params as { chunk: string }).chunk));
    await post(session, 'HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    writeFileSync(output, chunks.join(''));
    session.disconnect();
  };
}
