#!/usr/bin/env node
// Generates packages/patch/src/generated/kubernetes-patch-schema.ts from the Kubernetes OpenAPI v2
// document: for every definition reachable from a kind (x-kubernetes-group-version-kind), the
// fields with what strategic merge patch and server-side apply need (item/value type, patch merge
// key, patch strategy, list type, list map keys, map type), and a lookup by apiVersion/kind.
//
// Usage: node tools/patch-schema/generate.mjs openapi.json [out.ts]
// openapi.json: Kubernetes' OpenAPI v2 document (api/openapi-spec/swagger.json of kubernetes/kubernetes);
// out.ts defaults to the committed file under packages/patch/src/generated/.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
if (!process.argv[2]) throw new Error('usage: node tools/patch-schema/generate.mjs openapi.json [out.ts]');
const input = resolve(process.argv[2]);
const output = resolve(process.argv[3] ?? resolve(root, 'packages/patch/src/generated/kubernetes-patch-schema.ts'));

const spec = JSON.parse(readFileSync(input, 'utf8'));
const definitions = spec.definitions ?? {};
const REF_PREFIX = '#/definitions/';

function refName(schema) {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return undefined;
  if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
  const name = ref.slice(REF_PREFIX.length);
  if (!definitions[name]) throw new Error(`dangling $ref ${ref}`);
  return name;
}

// Roots: every definition that names a group/version/kind. Lists (`...List`) and meta kinds are
// kept too: a patch against them is rare but harmless, and the lookup must know them.
// Left out: the groups served by kube-apiserver's extension servers (CustomResourceDefinition,
// APIService). kubectl's client scheme does not hold them, so `kubectl patch --local` refuses
// strategic merge patch for them, and so does `clientctl`.
const EXCLUDED_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);
const gvkIndex = [];
for (const [name, def] of Object.entries(definitions)) {
  for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
    if (EXCLUDED_GROUPS.has(gvk.group)) continue;
    const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
    gvkIndex.push({ key: `${apiVersion}/${gvk.kind}`, name });
  }
}

// Walk from the roots, collecting every reachable definition.
const reachable = new Set();
const queue = [...new Set(gvkIndex.map((g) => g.name))];
while (queue.length) {
  const name = queue.pop();
  if (reachable.has(name)) continue;
  reachable.add(name);
  for (const prop of Object.values(definitions[name].properties ?? {})) {
    for (const s of [prop, prop.items, prop.additionalProperties]) {
      const r = refName(s);
      if (r && !reachable.has(r)) queue.push(r);
    }
  }
}

const names = [...reachable].sort();
const index = new Map(names.map((n, i) => [n, i]));

// Field encoding (see packages/patch/src/strategic-schema.ts, TableField):
//   0                                  a scalar or inline-typed field with no patch metadata
//   [ref, shape, mergeKey, strategy, listType, listMapKeys, mapType]   trailing empties trimmed
// ref: index of the item/value/field type in `types`, or -1; shape: 0 field, 1 list, 2 map.
function encodeField(prop) {
  let shape = 0;
  let target = prop;
  if (prop.type === 'array' || prop.items) {
    shape = 1;
    target = prop.items ?? {};
  } else if (prop.additionalProperties && typeof prop.additionalProperties === 'object') {
    shape = 2;
    target = prop.additionalProperties;
  }
  const ref = refName(target);
  const tuple = [
    ref === undefined ? -1 : index.get(ref),
    shape,
    prop['x-kubernetes-patch-merge-key'] ?? '',
    prop['x-kubernetes-patch-strategy'] ?? '',
    prop['x-kubernetes-list-type'] ?? '',
    prop['x-kubernetes-list-map-keys'] ?? 0,
    prop['x-kubernetes-map-type'] ?? '',
  ];
  while (tuple.length && (tuple.at(-1) === '' || tuple.at(-1) === 0)) tuple.pop();
  // A plain scalar field keeps only its name: the patch code needs to know it exists.
  if (tuple.length === 1 && tuple[0] === -1) return 0;
  return tuple.length ? tuple : 0;
}

// Type encoding: [name, fields | null, mapType?] — fields null for a definition without
// properties (Quantity, Time, IntOrString, RawExtension, FieldsV1, JSON): opaque to patching.
const types = names.map((name) => {
  const def = definitions[name];
  const props = def.properties;
  const fields = props
    ? Object.fromEntries(Object.keys(props).sort().map((k) => [k, encodeField(props[k])]))
    : null;
  const entry = [name, fields];
  if (def['x-kubernetes-map-type']) entry.push(def['x-kubernetes-map-type']);
  return entry;
});

const kinds = Object.fromEntries(
  gvkIndex.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((g) => [g.key, index.get(g.name)]),
);

const table = { types, kinds };
const header = `// Code generated by tools/patch-schema/generate.mjs from kubernetes-openapi-v2.json. DO NOT EDIT.
// ${names.length} definitions reachable from ${Object.keys(kinds).length} kinds; encoding described in
// tools/patch-schema/generate.mjs and packages/patch/src/strategic-schema.ts.
import type { PatchSchemaTable } from '../strategic-schema.js';

export const kubernetesPatchSchemaTable: PatchSchemaTable = `;
const text = `${header}${JSON.stringify(table)};\n`;
writeFileSync(output, text);
process.stdout.write(`wrote ${output}: ${names.length} types, ${Object.keys(kinds).length} kinds, ${text.length} bytes\n`);
