// The floor of a single executable with a start-up snapshot (`npm run build:sea -- floor-snapshot`):
// an empty snapshot and a main that does nothing, so that tools/bench/clientctl shows what
// deserializing a user-land snapshot costs before any of clientctl runs.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: a single executable's main script is CommonJS */
const v8 = require('node:v8');

if (v8.startupSnapshot.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(() => undefined);
