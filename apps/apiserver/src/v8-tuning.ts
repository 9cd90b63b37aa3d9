import v8 from 'node:v8';

/**
 * V8 settings for a serving apiserver, applied when `serve` starts, before the server is built.
 *
 * `--no-allocation-site-pretenuring`: V8 watches, per allocation site, how many of its young
 * objects survive a scavenge, and once most do it allocates that site's objects straight in the
 * old generation from then on. The request path's sites (request info, headers, the parser's
 * objects, the request context) are shared by every verb; a burst of slow, concurrent creates
 * (`kubectl apply` of many objects; the benchmark's 1,000-object seeding) has their objects
 * survive, and afterwards every GET allocates its short-lived objects in the old generation. In
 * issue 5's benchmark this made each scavenge 3-4 times slower (0.5 ms to 1.5-2 ms), promoted about
 * 185 KB per scavenge instead of 3 KB, brought mark-compacts of 10-50 ms, and raised the p99 of
 * GET at 50% of the maximum rate from about 4 ms to 30-50 ms (docs/performance.md, "apiserver").
 * Nothing the server keeps is long-lived enough to gain from pretenuring.
 *
 * An explicit `node --allocation-site-pretenuring` wins: the operator's choice is kept.
 */
export const servingV8Flags: readonly string[] = ['--no-allocation-site-pretenuring'];

export function applyServingV8Flags(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flag: string) => void = (flag) => v8.setFlagsFromString(flag),
): string[] {
  const applied: string[] = [];
  for (const flag of servingV8Flags) {
    const name = flag.replace(/^--no-/, '--').replace(/_/g, '-');
    const negated = `--no-${name.slice(2)}`;
    const chosen = execArgv.some((a) => {
      const n = a.split('=')[0]!.replace(/_/g, '-');
      return n === name || n === negated;
    });
    if (chosen) continue;
    setFlags(flag);
    applied.push(flag);
  }
  return applied;
}
