#!/usr/bin/env node
// Records @plat/cel's results on the cel-spec conformance suite (issue 17):
//
//   node tools/cel-conformance/report.mjs
//
// Runs packages/cel/test/conformance/cel-spec-suite.ts (bundled with esbuild, as the sources are)
// and writes what it found to packages/cel/test/conformance/results.generated.json and the table
// between the conformance markers of packages/cel/README.md. packages/cel/src/conformance.test.ts
// fails while either differs from a fresh run, so run this after a change that moves the figures.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const out = mkdtempSync(join(tmpdir(), 'plat-cel-conformance-'));
try {
  const outfile = join(out, 'suite.mjs');
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'packages/cel/test/conformance/cel-spec-suite.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  const suite = await import(pathToFileURL(outfile).href);
  const rec = suite.record(suite.runConformance());
  writeFileSync(join(root, suite.resultsFile), `${JSON.stringify(rec, null, 2)}\n`);

  const readme = join(root, 'packages/cel/README.md');
  const text = readFileSync(readme, 'utf8');
  const begin = text.indexOf(suite.tableBegin);
  const end = text.indexOf(suite.tableEnd);
  if (begin < 0 || end < begin) throw new Error(`packages/cel/README.md has no ${suite.tableBegin} ... ${suite.tableEnd} markers`);
  writeFileSync(readme, `${text.slice(0, begin + suite.tableBegin.length)}\n${suite.renderTable(rec)}\n${text.slice(end)}`);
  const failing = rec.failing.length;
  console.log(`recorded ${rec.sections.length} sections, ${failing} failing cases`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
