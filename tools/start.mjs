#!/usr/bin/env node
// `npm start`: builds the apiserver and clientctl bundles when they are missing or older than the
// sources (the start banner suggests `npx clientctl ...`), then runs the apiserver with the embedded
// defaults (SQLite under .plat/, a dev PKI on first start).
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'apps/apiserver/dist/main.mjs');
const bundles = [bundle, path.join(root, 'apps/clientctl/dist/main.mjs')];

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const newest = Math.max(newestSource(path.join(root, 'packages')), newestSource(path.join(root, 'apps')));
const stale = bundles.some((b) => !fs.existsSync(b) || fs.statSync(b).mtimeMs < newest);
if (stale) {
  console.error('Building the apiserver and clientctl (npx nx run-many -t build -p apiserver,clientctl)...');
  const built = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '-p', 'apiserver,clientctl', '--outputStyle=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const child = spawn(process.execPath, [bundle, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
