import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

/** Whether every thread of `pid` is stopped, by the state field of /proc/<pid>/task/<tid>/stat. */
function allThreadsStopped(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true; // the process ended and was reaped: nothing runs
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // "tid (comm) S ...": the command may hold spaces and parentheses; the state follows the last ")".
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    if (state !== 'T' && state !== 't') return false;
  }
  return true;
}

/**
 * Freezes a process with SIGSTOP and resolves once the kernel reports every one of its threads
 * stopped. kill() returns as soon as the signal is queued: the group stop begins only when one of
 * the process's threads takes the signal, and until then the others go on (an etcd under a
 * loaded machine still answers calls sent after kill() returned). Without /proc (not Linux) it
 * resolves after the kill.
 */
export async function freezeProcess(proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const pid = proc.pid;
  // A process that ended has nothing to freeze (its calls fail rather than hang).
  if (pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGSTOP');
  if (!existsSync(`/proc/${pid}/task`)) return;
  const deadline = Date.now() + timeoutMs;
  while (!allThreadsStopped(pid)) {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within ${timeoutMs} ms of SIGSTOP`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
