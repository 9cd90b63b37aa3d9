// Imports workspace packages from their TypeScript sources (the `@plat/source` condition) into a
// benchmark's process: one esbuild bundle of `contents` (an ES module resolved from the repository
// root), imported, then removed. No build step: the checked-out tree is measured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The module namespace of `contents` (e.g. `export * from '@plat/cel';`), bundled with its dependencies. */
export async function importSources(contents) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-sources-'));
  try {
    const outfile = path.join(out, 'sources.mjs');
    await build({
      absWorkingDir: root,
      stdin: { contents, resolveDir: root, loader: 'ts' },
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@plat/source'],
      // CommonJS dependencies (undici, say) bundled into ESM call require() for Node's built-ins.
      banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
      logLevel: 'error',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}
