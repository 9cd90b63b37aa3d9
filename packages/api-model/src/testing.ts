/**
 * Helpers for other packages' tests (the `@plat/api-model/testing` subpath): the settings every
 * property-based (fuzz) test shares, so one switch runs the whole suite long.
 */

/**
 * fast-check parameters for a fuzz property. `npm test` runs `runs` cases (bounded, seeded by
 * fast-check and printed on failure). The long mode is an environment variable:
 * `PLAT_FUZZ_RUNS=<n>` runs n cases of every property (`PLAT_FUZZ_RUNS=100000 npm test`);
 * `PLAT_FUZZ_SEED=<seed>` replays a failure fast-check reported.
 */
export function fuzzParameters(runs: number): { numRuns: number; seed?: number; endOnFailure: boolean } {
  const long = Number(process.env['PLAT_FUZZ_RUNS']);
  const seed = Number(process.env['PLAT_FUZZ_SEED']);
  return {
    numRuns: Number.isInteger(long) && long > 0 ? long : runs,
    ...(Number.isInteger(seed) && process.env['PLAT_FUZZ_SEED'] ? { seed } : {}),
    endOnFailure: true,
  };
}

/** Jest timeout for a fuzz test: its usual bound, or an hour in the long mode. */
export function fuzzTimeoutMs(usual: number): number {
  return process.env['PLAT_FUZZ_RUNS'] ? 3_600_000 : usual;
}
