#!/usr/bin/env node
// Generates packages/patch/src/generated/kubernetes-patch-schema.ts: the strategic merge patch and
// server-side apply metadata of every kind in kubectl 1.32's scheme (k8s.io/kubectl/pkg/scheme:
// client-go's kubernetes/scheme plus the meta types), read from the Go types of k8s.io/api and
// k8s.io/apimachinery v0.32, as kubectl reads them by reflection: for each field its JSON name,
// item/value type, `patchStrategy` and `patchMergeKey` tags, and the `+listType`,
// `+listMapKey`, `+mapType`/`+structType` markers; and a lookup by apiVersion/kind. A kind is
// strategic-merge-patchable exactly when it is in that scheme: apps/v1beta1 Deployment is,
// certificates.k8s.io/v1beta1 ClusterTrustBundle (added in 1.33) is not.
//
// Usage: node tools/patch-schema/generate.mjs API_DIR APIMACHINERY_DIR [out.ts]
// API_DIR and APIMACHINERY_DIR: checkouts of k8s.io/api and k8s.io/apimachinery at v0.32.x
// (`git archive v0.32.4 | tar -x -C DIR` of each repository); out.ts defaults to the committed file.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
if (!process.argv[3]) throw new Error('usage: node tools/patch-schema/generate.mjs API_DIR APIMACHINERY_DIR [out.ts]');
const apiDir = resolve(process.argv[2]);
const machineryDir = resolve(process.argv[3]);
const output = resolve(process.argv[4] ?? resolve(root, 'packages/patch/src/generated/kubernetes-patch-schema.ts'));

// client-go v0.32 kubernetes/scheme/register.go: the group versions kubectl 1.32 registers.
const SCHEME_PACKAGES = [
  'admissionregistration/v1', 'admissionregistration/v1alpha1', 'admissionregistration/v1beta1', 'apiserverinternal/v1alpha1',
  'apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'authentication/v1', 'authentication/v1alpha1', 'authentication/v1beta1',
  'authorization/v1', 'authorization/v1beta1', 'autoscaling/v1', 'autoscaling/v2', 'autoscaling/v2beta1', 'autoscaling/v2beta2',
  'batch/v1', 'batch/v1beta1', 'certificates/v1', 'certificates/v1alpha1', 'certificates/v1beta1', 'coordination/v1',
  'coordination/v1alpha2', 'coordination/v1beta1', 'core/v1', 'discovery/v1', 'discovery/v1beta1', 'events/v1', 'events/v1beta1',
  'extensions/v1beta1', 'flowcontrol/v1', 'flowcontrol/v1beta1', 'flowcontrol/v1beta2', 'flowcontrol/v1beta3', 'networking/v1',
  'networking/v1alpha1', 'networking/v1beta1', 'node/v1', 'node/v1alpha1', 'node/v1beta1', 'policy/v1', 'policy/v1beta1',
  'rbac/v1', 'rbac/v1alpha1', 'rbac/v1beta1', 'resource/v1alpha3', 'resource/v1beta1', 'scheduling/v1', 'scheduling/v1alpha1',
  'scheduling/v1beta1', 'storage/v1', 'storage/v1alpha1', 'storage/v1beta1', 'storagemigration/v1alpha1',
];
const META_V1 = 'k8s.io/apimachinery/pkg/apis/meta/v1';
const META_V1BETA1 = 'k8s.io/apimachinery/pkg/apis/meta/v1beta1';
// Types with their own JSON form (a string or number on the wire): opaque to patching.
const OPAQUE = new Set([
  `${META_V1}.Time`, `${META_V1}.MicroTime`, `${META_V1}.Duration`, `${META_V1}.FieldsV1`,
  'k8s.io/apimachinery/pkg/api/resource.Quantity', 'k8s.io/apimachinery/pkg/util/intstr.IntOrString',
  'k8s.io/apimachinery/pkg/runtime.RawExtension',
]);
const SCALARS = new Set(['string', 'bool', 'byte', 'rune', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'uintptr']);

function packageDir(pkg) {
  if (pkg.startsWith('k8s.io/api/')) return join(apiDir, pkg.slice('k8s.io/api/'.length));
  if (pkg.startsWith('k8s.io/apimachinery/')) return join(machineryDir, pkg.slice('k8s.io/apimachinery/'.length));
  throw new Error(`no source for package ${pkg}`);
}

/** `k8s.io/api/apps/v1` → `io.k8s.api.apps.v1` (the OpenAPI definition prefix). */
function definitionPrefix(pkg) {
  const [host, ...rest] = pkg.split('/');
  return [...host.split('.').reverse(), ...rest].join('.');
}

// ---------------------------------------------------------------------------------------------
// A small reader of Go type declarations: `type X struct {...}`, `type X Y`, `type X = Y`,
// with the comment markers above each type and field.

const packages = new Map();

function loadPackage(pkg) {
  if (packages.has(pkg)) return packages.get(pkg);
  const dir = packageDir(pkg);
  const types = new Map();
  const imports = new Map();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated') || file.endsWith('.pb.go')) continue;
    parseFile(readFileSync(join(dir, file), 'utf8'), types, imports);
  }
  const p = { pkg, types, imports };
  packages.set(pkg, p);
  return p;
}

function markers(comments) {
  const out = {};
  for (const line of comments) {
    const m = /^\/\/\s*\+([\w:./-]+)(?:=(.*))?$/.exec(line.trim());
    if (!m) continue;
    (out[m[1]] ??= []).push((m[2] ?? '').trim());
  }
  return out;
}

function parseFile(text, types, imports) {
  // Block comments (license headers, notes inside structs) hold no markers: blank them out.
  const lines = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, '')).split('\n');
  let comments = [];
  let previousBlock = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    const imp = /^(?:import\s+)?(\w+)?\s*"([\w./-]+)"$/.exec(trimmed);
    if (imp && (trimmed.startsWith('import') || /^\w*\s*"/.test(trimmed))) {
      const path = imp[2];
      imports.set(imp[1] ?? path.split('/').at(-1), path);
    }
    if (trimmed.startsWith('//')) {
      comments.push(trimmed);
      continue;
    }
    if (trimmed === '') {
      if (comments.length) previousBlock = comments;
      comments = [];
      continue;
    }
    const decl = /^type\s+(\w+)\s+(=\s*)?(.+)$/.exec(trimmed);
    if (decl) {
      const typeMarkers = markers([...previousBlock, ...comments]);
      const [, name, alias, rest] = decl;
      if (/^struct\s*\{\s*\}/.test(rest)) {
        types.set(name, { kind: 'struct', fields: [], markers: typeMarkers });
      } else if (rest.startsWith('struct {')) {
        const fields = [];
        let fieldComments = [];
        let depth = 1;
        for (i++; i < lines.length && depth > 0; i++) {
          const f = lines[i].trim();
          if (f === '}') {
            depth--;
            break;
          }
          if (f.startsWith('//')) {
            fieldComments.push(f);
            continue;
          }
          if (f === '') {
            fieldComments = [];
            continue;
          }
          const field = parseField(f, markers(fieldComments));
          if (field) fields.push(field);
          fieldComments = [];
        }
        types.set(name, { kind: 'struct', fields, markers: typeMarkers });
      } else {
        types.set(name, { kind: alias ? 'alias' : 'named', expr: rest.replace(/\s*\/\/.*$/, '').trim(), markers: typeMarkers });
      }
    }
    comments = [];
    previousBlock = [];
  }
}

function parseField(line, fieldMarkers) {
  const tagMatch = /`([^`]*)`/.exec(line);
  const tag = tagMatch ? tagMatch[1] : '';
  const head = line.replace(/`[^`]*`/, '').replace(/\/\/.*$/, '').trim();
  const parts = head.split(/\s+/);
  const tagValue = (key) => new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tag)?.[1];
  const json = tagValue('json');
  if (json === '-') return undefined;
  const [jsonName, ...opts] = (json ?? '').split(',');
  if (parts.length === 1) {
    // An embedded type: inlined by encoding/json unless it has a JSON name.
    return { embedded: true, name: jsonName, type: parts[0], inline: !jsonName || opts.includes('inline'), markers: fieldMarkers };
  }
  if (parts.length !== 2 || !jsonName) return undefined;
  return {
    name: jsonName,
    type: parts[1],
    strategy: tagValue('patchStrategy') ?? '',
    mergeKey: tagValue('patchMergeKey') ?? '',
    markers: fieldMarkers,
  };
}

// ---------------------------------------------------------------------------------------------
// Resolving Go types to table definitions

/** A Go type expression in a package → { shape: 0|1|2, target: qualified struct | null, markers }. */
function resolveType(pkgInfo, expr, seen = new Set()) {
  expr = expr.trim();
  if (expr.startsWith('*')) return resolveType(pkgInfo, expr.slice(1), seen);
  if (expr === '[]byte') return { shape: 0, target: null };
  if (expr.startsWith('[]')) {
    const item = resolveType(pkgInfo, expr.slice(2), seen);
    return { shape: 1, target: item.shape === 0 ? item.target : null };
  }
  const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
  if (map) {
    const value = resolveType(pkgInfo, map[2], seen);
    return { shape: 2, target: value.shape === 0 ? value.target : null };
  }
  if (SCALARS.has(expr) || expr === 'interface{}' || expr === 'any') return { shape: 0, target: null };
  const [pkg, name] = qualify(pkgInfo, expr);
  const qualified = `${pkg}.${name}`;
  if (OPAQUE.has(qualified)) return { shape: 0, target: qualified };
  const info = loadPackage(pkg);
  const decl = info.types.get(name);
  if (!decl) throw new Error(`unknown type ${qualified}`);
  if (decl.kind === 'struct') return { shape: 0, target: qualified };
  if (seen.has(qualified)) throw new Error(`type cycle at ${qualified}`);
  seen.add(qualified);
  const inner = resolveType(info, decl.expr, seen);
  // A named list or map keeps its own markers (`+listType` on `type X []Y`).
  return { ...inner, typeMarkers: decl.markers };
}

function qualify(pkgInfo, expr) {
  const dot = expr.indexOf('.');
  if (dot < 0) return [pkgInfo.pkg, expr];
  const alias = expr.slice(0, dot);
  const pkg = pkgInfo.imports.get(alias);
  if (!pkg) throw new Error(`unknown import ${alias} in ${pkgInfo.pkg}`);
  return [pkg, expr.slice(dot + 1)];
}

/** The struct declaration behind a qualified name, following aliases (`type Table = v1.Table`). */
function structOf(qualified) {
  let current = qualified;
  for (let i = 0; i < 5; i++) {
    const dot = current.lastIndexOf('.');
    const info = loadPackage(current.slice(0, dot));
    const decl = info.types.get(current.slice(dot + 1));
    if (!decl) throw new Error(`unknown type ${current}`);
    if (decl.kind === 'struct') return { info, decl, qualified: current };
    if (!/^[\w.]+$/.test(decl.expr)) throw new Error(`${current} is not a struct`);
    const [pkg, name] = qualify(info, decl.expr);
    current = `${pkg}.${name}`;
  }
  throw new Error(`alias chain too long at ${qualified}`);
}

const definitions = new Map(); // qualified struct → { name, fields, mapType }

function define(qualified) {
  const { info, decl, qualified: actual } = structOf(qualified);
  const key = actual;
  if (definitions.has(key)) return key;
  const defName = `${definitionPrefix(actual.slice(0, actual.lastIndexOf('.')))}.${actual.slice(actual.lastIndexOf('.') + 1)}`;
  const entry = { name: defName, fields: OPAQUE.has(actual) ? null : {}, mapType: (decl.markers.structType ?? decl.markers.mapType)?.[0] ?? '' };
  definitions.set(key, entry);
  if (entry.fields) collectFields(info, decl, entry.fields);
  return key;
}

function collectFields(info, decl, into) {
  for (const f of decl.fields) {
    if (f.embedded) {
      const [pkg, name] = qualify(info, f.type.replace(/^\*/, ''));
      if (f.inline) {
        const inner = structOf(`${pkg}.${name}`);
        collectFields(inner.info, inner.decl, into);
        continue;
      }
      into[f.name] = { shape: 0, target: `${pkg}.${name}`, strategy: '', mergeKey: '', markers: f.markers };
      continue;
    }
    const t = resolveType(info, f.type);
    into[f.name] = { ...t, strategy: f.strategy, mergeKey: f.mergeKey, markers: { ...(t.typeMarkers ?? {}), ...f.markers } };
  }
}

// ---------------------------------------------------------------------------------------------
// The scheme: every kind kubectl 1.32 can create, as apiVersion/Kind → Go type

const kinds = new Map();
const unversioned = new Map();

function registeredTypes(pkg) {
  const text = readFileSync(join(packageDir(pkg), 'register.go'), 'utf8');
  const info = loadPackage(pkg);
  const out = [];
  for (const block of text.matchAll(/AddKnownTypes\(\s*SchemeGroupVersion,([^)]*)\)/g)) {
    for (const m of block[1].matchAll(/&([\w.]+)\{\}/g)) {
      const [typePkg, name] = qualify(info, m[1]);
      out.push({ kind: name, qualified: `${typePkg}.${name}` });
    }
  }
  return { out, addsMeta: /metav1\.AddToGroupVersion\(scheme, SchemeGroupVersion\)/.test(text) };
}

function groupVersionOf(pkg) {
  const text = readFileSync(join(packageDir(pkg), 'register.go'), 'utf8');
  const m = /SchemeGroupVersion\s*=\s*schema\.GroupVersion\{Group:\s*(\w+|"[^"]*"),\s*Version:\s*"([^"]+)"\}/.exec(text);
  if (!m) throw new Error(`no SchemeGroupVersion in ${pkg}`);
  let group = m[1];
  if (!group.startsWith('"')) group = new RegExp(`const ${group}\\s*=\\s*("[^"]*")`).exec(text)?.[1] ?? (() => { throw new Error(`no group constant in ${pkg}`); })();
  group = JSON.parse(group);
  return group ? `${group}/${m[2]}` : m[2];
}

const metaOptions = ['ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'];
function addToGroupVersion(apiVersion) {
  kinds.set(`${apiVersion}/WatchEvent`, `${META_V1}.WatchEvent`);
  for (const k of metaOptions) kinds.set(`${apiVersion}/${k}`, `${META_V1}.${k}`);
  for (const k of ['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']) {
    kinds.set(`v1/${k}`, `${META_V1}.${k}`);
    unversioned.set(k, `${META_V1}.${k}`);
  }
}

// k8s.io/kubectl/pkg/scheme/install.go
addToGroupVersion('v1');
for (const [pkg, apiVersion] of [[META_V1BETA1, 'meta.k8s.io/v1beta1'], [META_V1, 'meta.k8s.io/v1']]) {
  for (const k of ['Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList']) kinds.set(`${apiVersion}/${k}`, `${pkg}.${k}`);
}
for (const rel of SCHEME_PACKAGES) {
  const pkg = `k8s.io/api/${rel}`;
  const apiVersion = groupVersionOf(pkg);
  const { out, addsMeta } = registeredTypes(pkg);
  for (const t of out) kinds.set(`${apiVersion}/${t.kind}`, t.qualified);
  if (addsMeta) addToGroupVersion(apiVersion);
}

// ---------------------------------------------------------------------------------------------
// The table (encoding: packages/patch/src/strategic-schema.ts, TableField and TableType)

const queue = [...new Set(kinds.values()), ...unversioned.values()].map(define);
for (let i = 0; i < queue.length; i++) {
  const entry = definitions.get(queue[i]);
  for (const f of Object.values(entry.fields ?? {})) {
    if (f.target) {
      const key = define(f.target);
      f.target = key;
      if (!queue.includes(key)) queue.push(key);
    }
  }
}

const ordered = [...definitions.entries()].sort((a, b) => (a[1].name < b[1].name ? -1 : a[1].name > b[1].name ? 1 : 0));
const index = new Map(ordered.map(([key], i) => [key, i]));

//   0                                  a scalar field with no patch metadata
//   [ref, shape, mergeKey, strategy, listType, listMapKeys, mapType]   trailing empties trimmed
function encodeField(f) {
  // As openapi-gen reads them: list markers count on lists only ([]byte is a string), map and
  // struct markers on maps and structs only.
  const m = f.markers ?? {};
  const isList = f.shape === 1;
  const isMapOrStruct = f.shape === 2 || (f.shape === 0 && f.target !== null && !OPAQUE.has(f.target));
  const tuple = [
    f.target ? index.get(f.target) : -1,
    f.shape,
    f.mergeKey,
    f.strategy,
    (isList && m.listType?.[0]) || '',
    isList && m.listMapKey?.length ? m.listMapKey : 0,
    (isMapOrStruct && (m.mapType ?? m.structType)?.[0]) || '',
  ];
  while (tuple.length && (tuple.at(-1) === '' || tuple.at(-1) === 0)) tuple.pop();
  if (tuple.length === 1 && tuple[0] === -1) return 0;
  return tuple.length ? tuple : 0;
}

const types = ordered.map(([, entry]) => {
  const fields = entry.fields ? Object.fromEntries(Object.keys(entry.fields).sort().map((k) => [k, encodeField(entry.fields[k])])) : null;
  const t = [entry.name, fields];
  if (entry.mapType) t.push(entry.mapType);
  return t;
});
const byKey = (m) => Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, q]) => [k, index.get(structOf(q).qualified)]));
const table = { types, kinds: byKey(kinds), unversioned: byKey(unversioned) };
// Packed (PackedPatchSchemaTable in packages/patch/src/strategic-schema.ts): strings that loading
// the module does not parse, one type per line parsed when first used; clientctl's start-up
// counts, and a patch uses a handful of the thousand types.
const header = `// Code generated by tools/patch-schema/generate.mjs from the Go types of k8s.io/api and
// k8s.io/apimachinery v0.32 (kubectl 1.32's scheme). DO NOT EDIT.
// ${types.length} definitions reachable from ${kinds.size} kinds; encoding described in
// tools/patch-schema/generate.mjs and packages/patch/src/strategic-schema.ts.
import type { PackedPatchSchemaTable } from '../strategic-schema.js';

export const kubernetesPatchSchemaTable: PackedPatchSchemaTable = {
`;
const packed = {
  packedTypes: types.map((t) => JSON.stringify(t)).join('\n'),
  packedKinds: JSON.stringify(table.kinds),
  packedUnversioned: JSON.stringify(table.unversioned),
};
const text = `${header}${Object.entries(packed).map(([k, v]) => `  ${k}: ${JSON.stringify(v)},\n`).join('')}};\n`;
writeFileSync(output, text);
process.stdout.write(`wrote ${output}: ${types.length} types, ${kinds.size} kinds, ${text.length} bytes\n`);
