#!/usr/bin/env node
// Lists (and with --fix, writes) the dependencies each workspace package imports from its
// non-test sources but does not declare in its package.json, so that every @plat package can be
// installed and used on its own, and the dependencies it declares but never imports (a consumer
// would install them for nothing). Workspace packages are declared with their exact version.
// An app (apps/*) ships one esbuild bundle: what it imports is bundled, so it may be declared in
// devDependencies, and its `dependencies` are exactly the bundle's externals (project.json), the
// modules an installed app loads at run time.
//   node tools/workspace-deps/workspace-deps.mjs          # report; exit 1 when something is missing or unused
//   node tools/workspace-deps/workspace-deps.mjs --fix    # add the missing entries (unused ones are only reported)
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const rootPkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function projects() {
  const out = [];
  for (const group of ['packages', 'apps']) {
    for (const dir of fs.readdirSync(path.join(root, group))) {
      const file = path.join(root, group, dir, 'package.json');
      if (fs.existsSync(file)) out.push({ dir: path.join(root, group, dir), file, app: group === 'apps' });
    }
  }
  return out;
}

/** The modules an app's bundle leaves to be loaded at run time (its build target's `external`). */
function bundleExternals(dir) {
  const project = JSON.parse(fs.readFileSync(path.join(dir, 'project.json'), 'utf8'));
  return project.targets.build.options.external ?? [];
}

function sources(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(ts|mts|mjs|js)$/.test(e.name) && !/\.test\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(full);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

const importPattern = /(?:^|[\s;])(?:import|export)\s(?:type\s)?(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function packageName(spec) {
  if (spec.startsWith('.') || spec.startsWith('/') || builtins.has(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function installedVersion(name) {
  const file = path.join(root, 'node_modules', name, 'package.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : undefined;
}

/** The packages a project's non-test sources import, and what its package.json declares. */
function usage(dir, pkg, app) {
  const declared = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    ...(app ? Object.keys(pkg.devDependencies ?? {}) : []),
  ]);
  const needed = new Set();
  for (const src of sources(path.join(dir, 'src'))) {
    const text = fs.readFileSync(src, 'utf8');
    for (const m of text.matchAll(importPattern)) {
      const name = packageName(m[1] ?? m[2]);
      if (name && name !== pkg.name) needed.add(name);
    }
  }
  return { declared, needed };
}

export function missingDependencies() {
  const report = [];
  for (const { dir, file, app } of projects()) {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { declared, needed } = usage(dir, pkg, app);
    const missing = [...needed].filter((n) => !declared.has(n));
    if (app) missing.push(...bundleExternals(dir).filter((n) => !(n in (pkg.dependencies ?? {})) && !missing.includes(n)));
    missing.sort();
    if (missing.length) report.push({ file, pkg, missing });
  }
  return report;
}

/**
 * Runtime dependencies no non-test source imports (test-only ones belong in devDependencies); for
 * an app, the ones its bundle does not leave external.
 */
export function unusedDependencies() {
  const report = [];
  for (const { dir, file, app } of projects()) {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { needed } = usage(dir, pkg, app);
    const used = app ? new Set(bundleExternals(dir)) : needed;
    const unused = Object.keys(pkg.dependencies ?? {}).filter((n) => !used.has(n)).sort();
    if (unused.length) report.push({ file, unused });
  }
  return report;
}

/** The range another workspace package already declares for a dependency, so all agree. */
function declaredRange(name) {
  for (const { file } of projects()) {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    const range = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name];
    if (range) return range;
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fix = process.argv.includes('--fix');
  const report = missingDependencies();
  for (const { file, pkg, missing } of report) {
    console.log(`${path.relative(root, file)}: missing ${missing.join(', ')}`);
    if (!fix) continue;
    pkg.dependencies ??= {};
    for (const name of missing) {
      const version = name.startsWith('@plat/')
        ? installedVersion(name)
        : declaredRange(name) ?? rootPkg.devDependencies?.[name] ?? `^${installedVersion(name)}`;
      pkg.dependencies[name] = version;
    }
    pkg.dependencies = Object.fromEntries(Object.entries(pkg.dependencies).sort(([a], [b]) => (a < b ? -1 : 1)));
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
  }
  const unused = unusedDependencies();
  for (const { file, unused: names } of unused) console.log(`${path.relative(root, file)}: declared but not imported ${names.join(', ')}`);
  if ((report.length && !fix) || unused.length) process.exit(1);
}
