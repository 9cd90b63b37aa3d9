// The single executable's entry of clientctl: main.ts without top-level await
// (a SEA main script is CommonJS). With a start-up snapshot (the default of tools/sea/build-sea.mjs),
// the bundle, including the modules `patch` needs, is loaded and initialised while the snapshot
// is built, and the command runs in the deserialized heap.
import v8 from 'node:v8';
import { processIo } from './io.js';
import { run } from './run.js';
// Loaded here rather than on demand, so that the snapshot holds them initialised: patch (and its
// local path) is the command whose start-up time counts (docs/performance.md).
import './commands/patch.js';
import './commands/local-patch.js';

function main(): void {
  run(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`clientctl: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

if (v8.startupSnapshot?.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(main);
else main();
