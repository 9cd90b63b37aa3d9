// The single executable's clientctl: main.ts without top-level await, since tools/sea/build-sea.mjs
// bundles it as CommonJS (each part of the executable is a CommonJS script compiled with its
// code cache by tools/sea/sea-loader.cjs; see docs/performance.md, "Single executable").
import { processIo } from './io.js';
import { run } from './run.js';

run(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`clientctl: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
