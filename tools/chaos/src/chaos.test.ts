import { hasEtcd, etcdBinary } from '@plat/storage/testing';
import { runChaos, type ChaosReport } from './run-chaos.js';
import { runSqliteChaos } from './run-sqlite-chaos.js';

/**
 * The fault-injection run. `npm test` runs the short mode (each fault once, under 90 s); the long
 * mode runs with PLAT_CHAOS_MODE=long and a seed (PLAT_CHAOS_SEED, default random):
 *   PLAT_CHAOS_MODE=long PLAT_CHAOS_SEED=7 npx nx run chaos:long
 */
const mode = process.env.PLAT_CHAOS_MODE === 'long' ? 'long' : 'short';
const seed = Number(process.env.PLAT_CHAOS_SEED ?? (mode === 'short' ? 1 : Math.floor(Math.random() * 1e6)));

if (!hasEtcd) console.warn(`chaos run SKIPPED: ${etcdBinary} is missing (install the etcd-server package)`);
const describeEtcd = hasEtcd ? describe : describe.skip;

describeEtcd('fault-injection run', () => {
  it(`keeps every acknowledged write, answers no applied write as failed, and sends each watch event once, in order (${mode}, seed ${seed})`, async () => {
    const bundle = process.env.PLAT_APISERVER_BUNDLE;
    if (!bundle) throw new Error('the apiserver bundle is missing: jest globalSetup builds it (src/global-setup.mjs)');
    const report = await runChaos({ mode, seed, bundle, log: (l) => process.stderr.write(`chaos: ${l}\n`) });
    expectClean(report);
  }, mode === 'long' ? 900_000 : 150_000);
});

const describeSqlite = process.env.PLAT_CHAOS_SQLITE === '0' ? describe.skip : describe;

describeSqlite('fault-injection run on SQLite', () => {
  it(`keeps every acknowledged write across SIGKILL and a full disk, and sends each watch event once, in order (seed ${seed})`, async () => {
    const bundle = process.env.PLAT_APISERVER_BUNDLE;
    if (!bundle) throw new Error('the apiserver bundle is missing: jest globalSetup builds it (src/global-setup.mjs)');
    const report = await runSqliteChaos({ seed, bundle, log: (l) => process.stderr.write(`chaos sqlite: ${l}\n`) });
    expectClean(report);
  }, 120_000);
});

function expectClean(report: ChaosReport): void {
  const { violations, ...figures } = report;
  process.stderr.write(`chaos report: ${JSON.stringify(figures)}\n`);
  for (const v of violations) process.stderr.write(`chaos violation: ${v.kind}: ${v.detail}\n`);
  expect(report.writes.ok).toBeGreaterThan(50);
  expect(report.watchEvents).toBeGreaterThan(50);
  expect(violations).toEqual([]);
}
