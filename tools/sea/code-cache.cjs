// `node tools/sea/code-cache.cjs PART.cjs PART.cache [ARG...]`: the V8 code cache of one part of a
// single executable (tools/sea/build-sea.mjs), made by the node binary the executable is a copy
// of, so that V8 accepts it (same version and flags: run it without NODE_OPTIONS). The part runs
// first, with ARG... as its command line (a package part just loads), and the cache is taken
// when the process exits: it then holds the compiled code of every function the run used, so a
// run of the executable compiles none of them. Its output is not wanted; its exit code is the part's.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: it runs a part as the executable's loader does */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const [file, out, ...args] = process.argv.slice(2);
const script = new vm.Script(fs.readFileSync(file, 'utf8'), { filename: path.basename(file) });
process.on('exit', () => fs.writeFileSync(out, script.createCachedData()));
process.argv = [process.execPath, process.execPath, ...args];
const mod = { exports: {} };
const partRequire = (id) => {
  if (id.startsWith('node:') || require('node:module').isBuiltin(id)) return require(id);
  throw new Error(`${file}: the warm-up run needs ${id}, another part: choose a warm-up command that does not`);
};
script.runInThisContext()(mod.exports, partRequire, mod, process.execPath, path.dirname(process.execPath));
