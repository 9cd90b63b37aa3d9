// The main script of a single executable built in parts (tools/sea/build-sea.mjs): it picks the
// part the command line needs (clientctl's `patch` gets a bundle without the other commands),
// compiles that part's CommonJS text, a SEA asset, with the V8 code cache made for it at build
// time after a warm-up run, and runs it. Packages a part leaves out (undici) are parts of their
// own, loaded the same way when first required. A SEA main can require only Node's built-in
// modules; a part gets a require that adds the package parts.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: a single executable's main script is CommonJS */
const sea = require('node:sea');
const vm = require('node:vm');

/** Filled in by build-sea.mjs: { byCommand: { firstWord: part }, main: part, packages: [name] }. */
const layout = __PLAT_SEA_LAYOUT__;
const loaded = new Map();
// PLAT_SEA_DEBUG=1: says on stderr when V8 rejects a code cache, and at exit where the CPU time
// went (Node's start before this script, each part's compile and first run, the rest of the run).
const debug = process.env.PLAT_SEA_DEBUG ? [['start', process.cpuUsage()]] : undefined;
if (debug) {
  process.on('exit', () => {
    debug.push(['exit', process.cpuUsage()]);
    const ms = (u) => (u.user + u.system) / 1000;
    const steps = debug.map(([what, u], i) => `${what} ${(ms(u) - (i ? ms(debug[i - 1][1]) : 0)).toFixed(1)}`);
    process.stderr.write(`sea cpu ms: ${steps.join(', ')}\n`);
  });
}

function partRequire(id) {
  if (layout.packages.includes(id)) return load(id);
  return require(id);
}

function load(part) {
  let mod = loaded.get(part);
  if (mod) return mod.exports;
  mod = { exports: {} };
  loaded.set(part, mod);
  // The asset holds the part wrapped as a function of (exports, require, module, __filename, __dirname),
  // in ASCII only (build-sea.mjs checks): read as Latin-1 straight from the executable's memory
  // (getRawAsset, not getAsset's copy) into a one-byte string, without UTF-8 decoding. The code
  // cache is handed to V8 in place too.
  const source = Buffer.from(sea.getRawAsset(`${part}.cjs`)).toString('latin1');
  const script = new vm.Script(source, { filename: `${part}.cjs`, cachedData: new Uint8Array(sea.getRawAsset(`${part}.cache`)) });
  if (debug) {
    if (script.cachedDataRejected) process.stderr.write(`${part}: code cache rejected\n`);
    debug.push([`${part} compile`, process.cpuUsage()]);
  }
  script.runInThisContext()(mod.exports, partRequire, mod, __filename, __dirname);
  if (debug) debug.push([`${part} load`, process.cpuUsage()]);
  return mod.exports;
}

load(layout.byCommand[process.argv[2]] ?? layout.main);
