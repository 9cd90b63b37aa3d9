// The single executable's clientctl: main.ts without top-level await, since tools/sea/build-sea.mjs
// bundles it as CommonJS (each part of the executable is a CommonJS script compiled with its
// code cache by tools/sea/sea-loader.cjs; see docs/performance.md, "Single executable").
import { processIo } from './io.js';
import { run } from './run.js';

const io = processIo();
run(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // The command is done: end now rather than after V8 tears down its heap (2-5 ms of CPU), unless output still waits in a stream.
    if (io.drained()) process.exit();
  },
  (err: unknown) => {
    process.stderr.write(`clientctl: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
