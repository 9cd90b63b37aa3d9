// Stands in for the `bindings` package inside the single executable apiserver: better-sqlite3 asks
// it for better_sqlite3.node, which the executable carries as a SEA asset. A native module can
// only be loaded from a file, so the asset is written once to a private cache directory (mode
// 0700, owned by this user; systemd's CacheDirectory when set), named by its SHA-256 so that a
// different build never loads a stale copy, and loaded with process.dlopen.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: it replaces the CommonJS package `bindings`, which better-sqlite3 calls as require('bindings')(name) */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sea = require('node:sea');

const loaded = new Map();

function cacheDir() {
  if (process.env.CACHE_DIRECTORY) return process.env.CACHE_DIRECTORY.split(':')[0];
  if (process.env.XDG_CACHE_HOME) return path.join(process.env.XDG_CACHE_HOME, 'plat');
  const home = os.homedir();
  if (home && home !== '/') return path.join(home, '.cache', 'plat');
  return path.join(os.tmpdir(), `plat-${process.getuid ? process.getuid() : 'user'}`);
}

/** A directory only this user can write, or an error saying why it is not one. */
function privateDir(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = process.getuid ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a private directory of this user (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}): cannot place the native module there`);
  }
  return dir;
}

module.exports = function bindings(name) {
  if (loaded.has(name)) return loaded.get(name);
  const asset = Buffer.from(sea.getAsset(name));
  const digest = crypto.createHash('sha256').update(asset).digest('hex').slice(0, 16);
  const dir = privateDir(cacheDir());
  const file = path.join(dir, `${path.basename(name, '.node')}-${digest}.node`);
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st || st.size !== asset.length || st.uid !== (process.getuid ? process.getuid() : st.uid)) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, asset, { mode: 0o500 });
    fs.renameSync(tmp, file);
  }
  const mod = { exports: {} };
  process.dlopen(mod, file);
  loaded.set(name, mod.exports);
  return mod.exports;
};
