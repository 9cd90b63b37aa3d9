/** Kubernetes' cacher sends the last bookmark this long before a watch's deadline. */
export const bookmarkBeforeDeadlineMs = 2000;

/**
 * When a watch with allowWatchBookmarks gets its periodic BOOKMARKs, as kube-apiserver's cacher
 * schedules them (cacheWatcher.nextBookmarkTime): every `intervalMs` (a minute by default), and
 * once more 2 s before `deadline` (the Date.now() time at which the server will end the watch, its
 * timeoutSeconds), so a client resumes from the newest revision the watch reached instead of
 * the last event it saw. Nothing is scheduled past that point, and a watch shorter than 2 s gets
 * none. Answers the function that cancels the schedule.
 */
export function scheduleBookmarks(send: () => void, opts: { intervalMs: number; deadline?: number }): () => void {
  const preDeadline = opts.deadline === undefined ? Infinity : opts.deadline - bookmarkBeforeDeadlineMs;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    const now = Date.now();
    // Node's timers take at most 2^31-1 ms; a longer delay would fire at once.
    const at = Math.min(now + Math.min(opts.intervalMs, 2 ** 31 - 1), preDeadline);
    if (at < now) return;
    timer = setTimeout(() => {
      send();
      if (at < preDeadline) schedule();
    }, at - now);
    timer.unref();
  };
  schedule();
  return () => clearTimeout(timer);
}
