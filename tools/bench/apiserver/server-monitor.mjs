// Preloaded into the apiserver by episodes.mjs (`node --import`): records the server's garbage
// collections (a `gc` PerformanceObserver) and event-loop lags (a 2 ms interval that fired more
// than 4 ms after the previous one), with times in ms since the epoch. On SIGUSR2 it writes what
// it recorded since the last SIGUSR2 to <tmpdir>/plat-bench-monitor-<pid>.json and starts over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

let gcs = [];
let lags = [];
// `detail.kind` of a gc entry: 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks.
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push([e.startTime + performance.timeOrigin, e.duration, e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > 4) lags.push([last + performance.timeOrigin, now - last]);
  last = now;
}, 2).unref();
process.on('SIGUSR2', () => {
  // Written aside and renamed into place, so that the reader never sees half a file.
  const file = path.join(os.tmpdir(), `plat-bench-monitor-${process.pid}.json`);
  fs.writeFileSync(`${file}.part`, JSON.stringify({ gcs, lags }));
  fs.renameSync(`${file}.part`, file);
  gcs = [];
  lags = [];
});
