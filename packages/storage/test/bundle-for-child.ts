import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const workspace = path.resolve(here, '..', '..', '..');

/**
 * Bundles a TypeScript entry of this folder into one ESM file a plain `node` child can run
 * (workspace packages resolve to their sources; native modules stay external and resolve from
 * the workspace's node_modules, under which the bundle is written).
 */
export async function bundleForChild(entry: string): Promise<string> {
  const cache = path.join(workspace, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const outDir = mkdtempSync(path.join(cache, 'plat-storage-child-'));
  const outfile = path.join(outDir, `${path.basename(entry, '.ts')}.mjs`);
  await build({
    entryPoints: [path.join(here, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@plat/source'],
    external: ['better-sqlite3', 'etcd3'],
    logLevel: 'silent',
  });
  return outfile;
}
