#!/usr/bin/env node
// `npm run build:sea [-- clientctl|apiserver|floor|floor-snapshot...]`: Node single executable applications
// of clientctl and apiserver for this platform (linux-x64 here), in dist/sea/. Each is a copy of
// this `node` binary (about 100 MB, so dist/ stays out of git) with a blob injected by postject.
// apiserver's blob holds one CommonJS bundle of the app (a SEA main script is a single CommonJS
// file that can require only Node's built-in modules) and its V8 code cache, better-sqlite3's
// native module as an asset (tools/sea/sea-addon.cjs writes it to a private cache file and
// dlopens it) and etcd3's gRPC definitions compiled in (etcdProtoPlugin below).
// clientctl is built in parts, because its start-up time is a product requirement
// (docs/performance.md, "Single executable"): its main script is tools/sea/sea-loader.cjs, and
// each part is a CommonJS bundle carried as an asset with a V8 code cache made here after a
// warm-up run of that part (tools/sea/code-cache.cjs). `clientctl patch` runs a part without the
// other commands; every other command line runs the whole app; undici is a part of its own that
// both load when a command first talks to a server. A start-up snapshot (`useSnapshot`, used
// for the floor-snapshot measurement only) costs more than it saves: deserializing an initialised
// heap took longer than running the part's module initialisation from a code cache.
// See docs/operations.md, "Single executables", and tools/bench/clientctl.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'dist', 'sea');
const require = createRequire(import.meta.url);
const here = path.join(root, 'tools', 'sea');

/** SEA's fuse, the sentinel postject flips (Node's documentation, "Single executable applications"). */
const fuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const apps = {
  clientctl: {
    entry: path.join(root, 'apps', 'clientctl', 'src', 'sea-main.ts'),
    snapshot: false,
    assets: {},
    replace: {},
    // Parts: `byCommand` picks one by the first argument, `main` is the whole app.
    parts: {
      // run.ts finds the command `patch` whenever it is the first argument, so this part never
      // reaches the modules of the other commands (nor completion's yargs): they are left out.
      patch: { command: 'patch', keepCommands: ['patch', 'local-patch', 'resource-target'], warmUp: patchWarmUp },
      main: { warmUp: () => ['--help'] },
    },
    packages: ['undici'],
  },
  apiserver: {
    entry: path.join(root, 'apps', 'apiserver', 'src', 'main.ts'),
    snapshot: false,
    assets: { 'better_sqlite3.node': path.join(path.dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node') },
    replace: { bindings: path.join(here, 'sea-addon.cjs') },
  },
  // Built only when named: the floors the benchmark sets clientctl against (docs/performance.md).
  floor: { entry: path.join(here, 'floor', 'empty.cjs'), snapshot: false, assets: {}, replace: {}, onRequest: true },
  'floor-snapshot': { entry: path.join(here, 'floor', 'empty-snapshot.cjs'), snapshot: true, assets: {}, replace: {}, onRequest: true },
};

/** The warm-up command line of clientctl's patch part: the benchmark's (tools/bench/clientctl). */
function patchWarmUp(dir) {
  const file = path.join(dir, 'deployment.yaml');
  fs.writeFileSync(file, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n');
  return ['patch', '--local', '-f', file, '-p', '{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}', '-o', 'json'];
}

/**
 * Leaves out of a part the command modules it never runs: an import of `./commands/X.js` from
 * clientctl's command table or run.ts, X not kept, becomes a module that throws when loaded.
 */
function leaveOutPlugin(keep) {
  return {
    name: 'plat-sea-leave-out',
    setup(b) {
      if (!keep) return;
      b.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) => {
        if (!/[\\/]apps[\\/]clientctl[\\/]src[\\/](command-table|trust-commands|run)\.ts$/.test(args.importer)) return undefined;
        const name = args.path.slice('./commands/'.length, -'.js'.length);
        return keep.includes(name) ? undefined : { path: args.path, namespace: 'plat-sea-left-out' };
      });
      b.onLoad({ filter: /.*/, namespace: 'plat-sea-left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`internal error: ${args.path} is not in this part of the executable`)});`,
        loader: 'js',
      }));
    },
  };
}

/** Resolves the packages in `replace` to the given files (the SEA's stand-ins). */
function replacePlugin(replace) {
  return {
    name: 'plat-sea-replace',
    setup(b) {
      const names = Object.keys(replace);
      if (!names.length) return;
      b.onResolve({ filter: new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`) }, (args) => ({ path: replace[args.path] }));
    },
  };
}

/**
 * @plat/storage loads better-sqlite3 with a require made by createRequire (lazily, from ESM),
 * which esbuild cannot follow: in the SEA bundle that call becomes a plain require, so that
 * better-sqlite3's JavaScript is bundled (its native part comes from the asset).
 */
const bundleSqlitePlugin = {
  name: 'plat-sea-bundle-sqlite',
  setup(b) {
    b.onLoad({ filter: /[\\/]packages[\\/]storage[\\/]src[\\/]load-sqlite\.ts$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8');
      const call = "nodeRequire('better-sqlite3')";
      if (!text.includes(call)) throw new Error(`${args.path} no longer loads better-sqlite3 with ${call}: update tools/sea/build-sea.mjs`);
      return { contents: text.replace(call, "require('better-sqlite3')"), loader: 'ts' };
    });
  },
};

/**
 * etcd3 reads its gRPC service definitions from .proto files beside its code when it is loaded,
 * files a single executable does not have: the build loads them with etcd3's own
 * @grpc/proto-loader (the same options, so keepCase holds) and the bundle gets the resulting
 * protobufjs JSON, which the loader's fromJSON turns into the same package definition.
 */
const etcdProtoPlugin = {
  name: 'plat-sea-etcd-proto',
  setup(b) {
    b.onLoad({ filter: /[\\/]etcd3[\\/]lib[\\/]connection-pool\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8');
      const call = '(0, proto_loader_1.loadSync)(`${__dirname}/../proto/rpc.proto`, {';
      const options = /loadSync\)\(`\$\{__dirname\}\/\.\.\/proto\/rpc\.proto`, (\{[^}]*\})\)/.exec(text);
      if (!text.includes(call) || !options) throw new Error(`${args.path} no longer loads rpc.proto with ${call}: update tools/sea/build-sea.mjs`);
      const loaderUtil = createRequire(args.path)('@grpc/proto-loader/build/src/util.js');
      // The options as etcd3 writes them (keepCase, longs: String...): only keepCase matters when parsing.
      const keepCase = /keepCase:\s*true/.test(options[1]);
      const root = loaderUtil.loadProtosWithOptionsSync(path.join(path.dirname(args.path), '..', 'proto', 'rpc.proto'), { keepCase });
      return { contents: text.replace(call, `(0, proto_loader_1.fromJSON)(${JSON.stringify(root.toJSON())}, {`), loader: 'js' };
    });
  },
};

async function bundle(name, app, { entry = app.entry, file = path.join(out, `${name}.cjs`), external = [], plugins = [], supported = {} } = {}) {
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    conditions: ['@plat/source'],
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    external,
    supported,
    // ESM sources ask for import.meta.url (yargs, createRequire); in the executable it is the executable's own path.
    define: { 'import.meta.url': '__platSeaUrl', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
    banner: { js: urlBanner },
    plugins: [...plugins, replacePlugin(app.replace), bundleSqlitePlugin, etcdProtoPlugin],
  });
  // A bundle that never reads import.meta.url (clientctl's patch part) does not build the URL at
  // start-up (node:url's pathToFileURL, its first call compiled then): the banner stays a bare
  // declaration, so the top of the bundle reads as before ("use strict" still no directive).
  const text = fs.readFileSync(file, 'utf8');
  if (text.startsWith(urlBanner) && text.indexOf('__platSeaUrl', urlBanner.length) === -1) fs.writeFileSync(file, `var __platSeaUrl;${text.slice(urlBanner.length)}`);
  return file;
}

const urlBanner = "var __platSeaUrl = require('node:url').pathToFileURL(__filename).href;";

/**
 * The parts of an app built in parts, as assets: for each, `PART.cjs` (the bundle wrapped as a
 * function of exports, require, module, __filename and __dirname, as Node wraps a CommonJS
 * module) and `PART.cache` (its code cache after the part's warm-up run); and the main script,
 * tools/sea/sea-loader.cjs with the layout filled in.
 */
async function buildParts(name, app) {
  const dir = path.join(out, `${name}.parts`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // The app's own esbuild plugins (clientctl's marks its pure libraries free of side effects, as its npm bundle does).
  const appConfig = (await import(path.join(path.dirname(app.entry), '..', 'esbuild.config.mjs'))).default;
  const warm = fs.mkdtempSync(path.join(os.tmpdir(), `plat-sea-${name}-`));
  const assets = {};
  const layout = { byCommand: {}, main: 'main', packages: app.packages };
  try {
    const parts = [
      ...Object.entries(app.parts).map(([part, p]) => ({ part, p, entry: app.entry, plugins: [leaveOutPlugin(p.keepCommands), ...appConfig.plugins] })),
      ...app.packages.map((pkg) => ({ part: pkg, p: { warmUp: () => [] }, entry: require.resolve(pkg), plugins: [] })),
    ];
    for (const { part, p, entry, plugins } of parts) {
      if (p.command) layout.byCommand[p.command] = part;
      // import() becomes require(): a part runs in a vm.Script, which has no dynamic import (and
      // it would not find the package parts or Node's modules through it).
      const raw = await bundle(part, app, { entry, file: path.join(dir, `${part}.bundle.cjs`), external: entry === app.entry ? app.packages : [], plugins, supported: { 'dynamic-import': false } });
      const source = fs.readFileSync(raw, 'utf8');
      if (/\bimport\(/.test(source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""'))) throw new Error(`${part}: an import() is left in the bundle; a part cannot run it`);
      const file = path.join(dir, `${part}.cjs`);
      const text = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
      // sea-loader.cjs reads a part as Latin-1; esbuild writes non-ASCII characters as escapes (its charset default).
      if (/[^\x00-\x7f]/.test(text)) throw new Error(`${part}: the bundle has a non-ASCII character; the loader reads parts as Latin-1`);
      fs.writeFileSync(file, text);
      fs.rmSync(raw);
      const cache = path.join(dir, `${part}.cache`);
      const env = { PATH: process.env.PATH, HOME: warm, KUBECONFIG: path.join(warm, 'none') };
      execFileSync(process.execPath, [path.join(here, 'code-cache.cjs'), file, cache, ...p.warmUp(warm)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      assets[`${part}.cjs`] = file;
      assets[`${part}.cache`] = cache;
    }
  } finally {
    fs.rmSync(warm, { recursive: true, force: true });
  }
  const main = path.join(out, `${name}.cjs`);
  const loader = fs.readFileSync(path.join(here, 'sea-loader.cjs'), 'utf8');
  if (!loader.includes('__PLAT_SEA_LAYOUT__')) throw new Error('tools/sea/sea-loader.cjs lacks __PLAT_SEA_LAYOUT__');
  fs.writeFileSync(main, loader.replace('__PLAT_SEA_LAYOUT__', JSON.stringify(layout)));
  return { main, assets };
}

async function buildOne(name) {
  const app = apps[name];
  const { main, assets } = app.parts ? await buildParts(name, app) : { main: await bundle(name, app), assets: app.assets };
  const blob = path.join(out, `${name}.blob`);
  const useSnapshot = app.snapshot;
  const config = {
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    // The code cache cannot be combined with a snapshot (Node rejects the pair). Node compiles the
    // snapshotted main script eagerly and keeps function code in the snapshot
    // (src/node_snapshotable.cc: CompileSerializeMain with kEagerCompile, CreateBlob with
    // FunctionCodeHandling::kKeep); V8 flags given to the builder (--no-flush-bytecode) change
    // the snapshot's tag and the executable then refuses it.
    useSnapshot,
    useCodeCache: !useSnapshot,
    assets,
  };
  const configFile = path.join(out, `${name}.sea-config.json`);
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  // Their chatter (an experimental warning, postject's notes about ELF sections) is shown only when they fail.
  execFileSync(process.execPath, ['--experimental-sea-config', configFile], { cwd: out, stdio: 'pipe' });
  const exe = path.join(out, name);
  fs.rmSync(exe, { force: true });
  fs.copyFileSync(process.execPath, exe);
  fs.chmodSync(exe, 0o755);
  const postject = path.join(path.dirname(require.resolve('postject/package.json')), 'dist', 'cli.js');
  execFileSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', fuse], { stdio: 'pipe' });
  for (const f of [blob, configFile]) fs.rmSync(f, { force: true });
  return { exe, snapshot: useSnapshot };
}

export async function buildSea({ names = Object.keys(apps).filter((n) => !apps[n].onRequest) } = {}) {
  fs.mkdirSync(out, { recursive: true });
  const built = {};
  for (const name of names) built[name] = await buildOne(name);
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') console.warn(`building for ${process.platform}-${process.arch}: only linux-x64 is tested`);
  const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !(n in apps));
  if (unknown.length) {
    console.error(`unknown executable ${unknown.join(', ')}: one of ${Object.keys(apps).join(', ')}`);
    process.exit(2);
  }
  const started = Date.now();
  const built = await buildSea({ names: names.length ? names : undefined });
  for (const { exe, snapshot } of Object.values(built)) {
    console.log(`${path.relative(process.cwd(), exe)}: ${(fs.statSync(exe).size / 1e6).toFixed(1)} MB${snapshot ? ', start-up snapshot' : ', code cache'}`);
  }
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
