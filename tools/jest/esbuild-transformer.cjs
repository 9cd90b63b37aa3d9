// Jest transformer: TypeScript to ESM with esbuild's transformSync (types are checked by the
// typecheck target, not here). Chosen over @swc/jest because @swc/core's platform binaries for
// other systems are not all on the registry mirror our machines use, which makes `npm ci` refuse
// the lockfile; esbuild's are.
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { transformSync } = require('esbuild');

const options = { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcesContent: true };

module.exports = {
  canInstrument: false,
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(source).update('\0').update(filename).update('\0esbuild-v2').digest('hex');
  },
  process(source, filename) {
    // Jest 29's ESM runtime has no import.meta.dirname / filename (Node 20.11+ has): fill them in.
    const define = {
      'import.meta.dirname': JSON.stringify(path.dirname(filename)),
      'import.meta.filename': JSON.stringify(filename),
    };
    const result = transformSync(source, { ...options, define, sourcefile: filename });
    return { code: result.code };
  },
};
