#!/usr/bin/env node
// `npm run release -- [nx release options]`: versions, changelogs and publishing of the @plat
// packages with Nx release (nx.json "release": independent versions, version plans under
// .nx/version-plans, one CHANGELOG.md per package). See docs/releasing.md.
//
// With --dry-run nothing is written, committed, tagged or published, and nothing goes over the
// network: `npm publish --dry-run` would otherwise fetch every package's registry document (and,
// without a network, wait out its retries for about a minute per package), so npm runs offline.
// The publish step is confirmed up front (--yes) so that the dry run shows what would be published.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run') || args.includes('-d');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
if (dryRun) env.npm_config_offline = 'true';
const confirm = dryRun && !['--yes', '-y', '--skip-publish'].some((flag) => args.includes(flag));
const nxArgs = ['release', ...args, ...(confirm ? ['--yes'] : [])];
const nx = path.join(root, 'node_modules', 'nx', 'dist', 'bin', 'nx.js');
const result = spawnSync(process.execPath, [nx, ...nxArgs], { cwd: root, env, stdio: 'inherit' });
process.exit(result.status ?? 1);
