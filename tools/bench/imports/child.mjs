// One measurement of tools/bench/imports/bench.mjs, in a fresh process:
//   node child.mjs import <specifier>...   times importing the specifiers in order
//   node child.mjs storage-local           times importing @plat/storage and using a memory and a SQLite store
// Prints {"ms": ..., "loaded": [CommonJS packages in require.cache]}.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const [mode, ...specifiers] = process.argv.slice(2);
const start = performance.now();
if (mode === 'import') {
  for (const specifier of specifiers) await import(specifier);
} else if (mode === 'storage-local') {
  const { openStorage } = await import('@plat/storage');
  const memory = await openStorage({ backend: 'memory' });
  await memory.create('/g/r/x', { metadata: { name: 'x' } });
  await memory.close();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-imports-'));
  const sqlite = await openStorage({ backend: 'sqlite', dataDir });
  await sqlite.create('/g/r/x', { metadata: { name: 'x' } });
  await sqlite.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
} else {
  throw new Error(`unknown mode ${mode}`);
}
const ms = performance.now() - start;
const loaded = new Set();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) continue;
  const parts = file.slice(at + 14).split('/');
  loaded.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
}
console.log(JSON.stringify({ ms, loaded: [...loaded].sort() }));
