#!/usr/bin/env node
// Generates, from Kubernetes' generated.proto files vendored in tools/kube-codegen/inputs at the
// version inputs/inputs.lock.json pins (see inputs/README.md):
// - packages/server/src/openapi/meta-definitions.generated.ts: the OpenAPI v2 definitions of the
//   meta.k8s.io types every document carries, and the common query parameters;
// - packages/server/src/protobuf-messages.generated.ts: the meta/v1 protobuf messages (field
//   numbers, JSON names, types) the request body reader needs;
// - packages/registry/src/kind-definitions.generated.ts: the OpenAPI v2 definitions of the kinds
//   plat serves, under Kubernetes' definition names and under plat's;
// - packages/registry/src/kind-protobuf.generated.ts: the protobuf messages of those kinds.
// Protobufjs reads the .proto files (messages, field numbers, types, imports); the comments it
// does not keep verbatim are read from the same files line by line. The OpenAPI schema of a
// message follows k8s.io/kube-openapi's openapi-gen (pkg/generators/openapi.go): the comment
// becomes the description (generateDescription: marker lines `+...` and one-line TODOs dropped,
// lines joined, blank lines kept as paragraphs, indented lines kept on their own line, nothing
// after `---`), `+optional` leaves a field out of `required`, and the markers become the
// x-kubernetes-* extensions (`+listType`, `+listMapKey`, `+mapType`, `+patchStrategy`,
// `+patchMergeKey`); the types with their own OpenAPI type (Time, IntOrString, Quantity,
// RawExtension, ...) are written as their OpenAPISchemaType/OpenAPISchemaFormat say.
// What generated.proto does not carry is not derived: Go's `omitempty`, embedded (inlined)
// structs, `+union` members and `+enum` values. The served kinds need only the first, listed in
// `omitEmpty` below; run over the whole of core/v1 at 1.36, three in four definitions come out
// equal to Kubernetes' and the rest differ by those four and by the TypeMeta fields of the
// kinds it is not told about.
//
// Usage: node tools/kube-codegen/generate.mjs [--out DIR]
//          writes the four files under DIR (default: the repository root)
//        node tools/kube-codegen/generate.mjs --fetch [--update-lock]
//          downloads the inputs again from raw.githubusercontent.com at the locked commits and
//          checks their sha256 (--update-lock records new ones, after a change of commit)
//        node tools/kube-codegen/generate.mjs --inputs DIR --out OUT
//          reads the same files of another Kubernetes version from DIR (laid out as inputs/),
//          without the lock, to compare with that version's published OpenAPI document
// The test tools/workspace-checks/src/generated-code.test.ts fails when the checked-in files
// differ from what this writes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
const inputs = join(here, 'inputs');
const lockPath = join(inputs, 'inputs.lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

if (flag('--fetch')) {
  for (const mod of lock.modules) {
    for (const file of mod.files) {
      const url = `https://raw.githubusercontent.com/${mod.repository}/${mod.commit}/${file.path}`;
      const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (flag('--update-lock')) file.sha256 = sha256(bytes);
      else if (sha256(bytes) !== file.sha256) throw new Error(`${url}: sha256 ${sha256(bytes)}, the lock says ${file.sha256}`);
      const target = join(inputs, mod.module, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, bytes);
      console.log(`${mod.module}/${file.path}`);
    }
  }
  if (flag('--update-lock')) writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  process.exit(0);
}

// `--inputs DIR` reads another checkout of the same files (to compare the output of another
// Kubernetes version with its published OpenAPI document): no lock check, and kinds that
// version lacks are left out. Otherwise every input is the one the lock names.
const otherInputs = option('--inputs');
const inputsDir = otherInputs ? resolve(otherInputs) : inputs;
for (const mod of otherInputs ? [] : lock.modules) {
  for (const file of mod.files) {
    const actual = sha256(readFileSync(join(inputs, mod.module, file.path)));
    if (actual !== file.sha256) throw new Error(`inputs/${mod.module}/${file.path}: sha256 ${actual}, inputs.lock.json says ${file.sha256}`);
  }
}
const provenance = lock.modules.map((m) => `${m.module} ${m.tag} (${m.commit})`).join(' and ');

// ---------------------------------------------------------------------------------------------
// What plat serves.

const API = 'k8s.io.api';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The served group versions: proto package, Kubernetes group, version, kinds, plat's group. */
const served = [
  ...['v1alpha1', 'v1beta1', 'v1'].map((version) => ({
    key: `certificates${cap(version)}`, pkg: `${API}.certificates.${version}`, group: 'certificates.k8s.io', version,
    kinds: ['ClusterTrustBundle', 'ClusterTrustBundleList'], platGroup: 'certificates.plat.io',
  })),
  {
    key: 'rbacV1', pkg: `${API}.rbac.v1`, group: 'rbac.authorization.k8s.io', version: 'v1', platGroup: 'rbac.authorization.plat.io',
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'ClusterRoleList', 'Role', 'RoleBinding', 'RoleBindingList', 'RoleList'],
  },
  { key: 'coreV1', pkg: `${API}.core.v1`, group: '', version: 'v1', kinds: ['Namespace', 'NamespaceList'] },
  {
    key: 'authorizationV1', pkg: `${API}.authorization.v1`, group: 'authorization.k8s.io', version: 'v1', platGroup: 'authorization.plat.io',
    kinds: ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  },
  { key: 'authenticationV1', pkg: `${API}.authentication.v1`, group: 'authentication.k8s.io', version: 'v1', platGroup: 'authentication.plat.io', kinds: ['SelfSubjectReview'] },
];

/** The meta.k8s.io definitions every document carries (with what they reference). */
const metaRoots = [
  'ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'WatchEvent', 'Patch', 'APIResourceList',
  'APIGroupList', 'APIGroup', 'APIVersions', 'LabelSelector', 'FieldSelectorRequirement',
];

// Go types that embed TypeMeta (apiVersion, kind), which generated.proto leaves out: the kinds
// above and these meta/v1 ones.
const metaTypeMeta = new Set(['APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions', 'DeleteOptions', 'Status']);

// The group versions in which kube-apiserver's OpenAPI lists meta/v1 DeleteOptions and WatchEvent
// (every group version it serves, as in kubernetes/kubernetes api/openapi-spec/swagger.json): a
// property of the server, not of any generated.proto, kept as plat has always served it.
const everyGroupVersion = [
  '/v1', 'admission.k8s.io/v1', 'admission.k8s.io/v1beta1', 'admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1alpha1',
  'admissionregistration.k8s.io/v1beta1', 'apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1', 'apiregistration.k8s.io/v1',
  'apiregistration.k8s.io/v1beta1', 'apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'authentication.k8s.io/v1', 'authentication.k8s.io/v1alpha1',
  'authentication.k8s.io/v1beta1', 'authorization.k8s.io/v1', 'authorization.k8s.io/v1beta1', 'autoscaling/v1', 'autoscaling/v2', 'batch/v1',
  'batch/v1beta1', 'certificates.k8s.io/v1', 'certificates.k8s.io/v1alpha1', 'certificates.k8s.io/v1beta1', 'coordination.k8s.io/v1',
  'coordination.k8s.io/v1alpha2', 'coordination.k8s.io/v1beta1', 'discovery.k8s.io/v1', 'discovery.k8s.io/v1beta1', 'events.k8s.io/v1',
  'events.k8s.io/v1beta1', 'extensions/v1beta1', 'flowcontrol.apiserver.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1beta2', 'flowcontrol.apiserver.k8s.io/v1beta3', 'imagepolicy.k8s.io/v1alpha1', 'internal.apiserver.k8s.io/v1alpha1',
  'networking.k8s.io/v1', 'networking.k8s.io/v1beta1', 'node.k8s.io/v1', 'node.k8s.io/v1alpha1', 'node.k8s.io/v1beta1', 'policy/v1',
  'policy/v1beta1', 'rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io/v1alpha1', 'rbac.authorization.k8s.io/v1beta1', 'resource.k8s.io/v1',
  'resource.k8s.io/v1alpha3', 'resource.k8s.io/v1beta1', 'resource.k8s.io/v1beta2', 'scheduling.k8s.io/v1', 'scheduling.k8s.io/v1alpha2',
  'scheduling.k8s.io/v1beta1', 'storage.k8s.io/v1', 'storage.k8s.io/v1alpha1', 'storage.k8s.io/v1beta1', 'storagemigration.k8s.io/v1beta1',
];
const metaKinds = {
  APIGroup: ['/v1'],
  APIGroupList: ['/v1'],
  APIResourceList: ['/v1'],
  APIVersions: ['/v1'],
  DeleteOptions: everyGroupVersion,
  Status: ['/v1'],
  WatchEvent: everyGroupVersion,
};

// Fields openapi-gen leaves out of `required` for their Go tag `json:",omitempty"` alone (no
// `+optional` marker): generated.proto keeps no struct tags. A name that no longer resolves
// fails the run.
const omitEmpty = new Set([
  `${META}.APIResource.group`, `${META}.APIResource.version`, `${META}.APIResource.shortNames`, `${META}.APIResource.categories`,
  `${META}.ListMeta.continue`, `${META}.ManagedFieldsEntry.manager`, `${META}.ManagedFieldsEntry.operation`,
  `${META}.ManagedFieldsEntry.apiVersion`, `${META}.ManagedFieldsEntry.fieldsType`, `${META}.ManagedFieldsEntry.subresource`,
  `${API}.authorization.v1.SelfSubjectRulesReviewSpec.namespace`,
]);

// Types whose JSON is not their protobuf message (OpenAPISchemaType / OpenAPISchemaFormat of
// their Go types in k8s.io/apimachinery).
const ownSchema = {
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.Duration`]: { type: 'string' },
  [`${META}.FieldsV1`]: { type: 'object' },
  'k8s.io.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
};

// The query parameters plat's operations name, with the meta/v1 options message whose field
// documents each (kube-apiserver's installer reads them from the same Go fields).
const parameterSources = {
  allowWatchBookmarks: 'ListOptions', continue: 'ListOptions', fieldSelector: 'ListOptions', labelSelector: 'ListOptions', limit: 'ListOptions',
  resourceVersion: 'ListOptions', resourceVersionMatch: 'ListOptions', sendInitialEvents: 'ListOptions', timeoutSeconds: 'ListOptions',
  watch: 'ListOptions', dryRun: 'DeleteOptions', gracePeriodSeconds: 'DeleteOptions', propagationPolicy: 'DeleteOptions',
  ignoreStoreReadErrorWithClusterBreakingPotential: 'DeleteOptions', fieldManager: 'UpdateOptions', fieldValidation: 'UpdateOptions', force: 'PatchOptions',
};
// `pretty` is no options field: k8s.io/apiserver pkg/endpoints/installer.go writes it.
const prettyParameter = {
  description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
  in: 'query', name: 'pretty', type: 'string', uniqueItems: true,
};

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Reading the inputs.

const protoFiles = [];
for (const mod of lock.modules) for (const f of mod.files) if (f.path.endsWith('.proto')) protoFiles.push(`${mod.module}/${f.path}`);
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(inputsDir, target);
root.loadSync(protoFiles, { keepCase: true });
root.resolveAll();
if (otherInputs) for (const gv of served) gv.kinds = gv.kinds.filter((k) => root.lookup(`${gv.pkg}.${k}`));

/** Comment lines (without `//` and one space) of each message and field, by full name. */
const comments = new Map();
for (const file of protoFiles) {
  let pkg = '';
  let message;
  let pending = [];
  for (const line of readFileSync(join(inputsDir, file), 'utf8').split('\n')) {
    const t = line.trim();
    if (t.startsWith('//')) {
      pending.push(t.slice(2).replace(/^ /, ''));
      continue;
    }
    const pkgMatch = /^package ([\w.]+);/.exec(t);
    const messageMatch = /^message (\w+) \{/.exec(t);
    const fieldMatch = /^(?:optional |repeated )?(?:map<[^>]+>|[\w.]+) (\w+) = \d+;/.exec(t);
    if (pkgMatch) pkg = pkgMatch[1];
    else if (messageMatch) {
      message = `${pkg}.${messageMatch[1]}`;
      comments.set(message, pending);
    } else if (fieldMatch && message) comments.set(`${message}.${fieldMatch[1]}`, pending);
    else if (t === '}') message = undefined;
    pending = [];
  }
}

// kube-openapi's generateDescription, applied to a comment's lines.
function description(lines) {
  let out = '';
  for (let line of lines ?? []) {
    if (line === '---') break;
    line = line.trimEnd();
    const leading = line.trimStart();
    if (line.length === 0) out = `${out.slice(0, -1)}\n\n`;
    else if (leading.startsWith('TODO') || leading.startsWith('+')) continue;
    else if (line.startsWith(' ') || line.startsWith('\t')) out = `${out.slice(0, -1)}\n${line}\n`;
    else out += `${line} `;
  }
  return out.replace(/^\n+/, '').replace(/\n+$/, '').trim() || undefined;
}

/** The `+name=value` markers of a comment (every value, in order). */
function markers(lines) {
  const out = new Map();
  for (const line of lines ?? []) {
    const m = /^\+([\w.:-]+)(?:=(.*))?$/.exec(line.trim());
    if (!m) continue;
    out.set(m[1], [...(out.get(m[1]) ?? []), m[2] ?? '']);
  }
  return out;
}

const fullName = (type) => type.fullName.replace(/^\./, '');
/** io.k8s.api.rbac.v1.Role for k8s.io.api.rbac.v1.Role. */
const definitionName = (name) => name.replace(/^k8s\.io\./, 'io.k8s.');
/** A message Go declares as a slice (`+protobuf.nullable=true`, one `items` field): its item type. */
function sliceItems(type) {
  const fields = Object.values(type.fields);
  if (!markers(comments.get(fullName(type))).has('protobuf.nullable') || fields.length !== 1 || fields[0].name !== 'items') return undefined;
  return fields[0];
}

// ---------------------------------------------------------------------------------------------
// OpenAPI v2 definitions.

const scalars = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  double: { type: 'number', format: 'double' },
  bytes: { type: 'string', format: 'byte' },
};

function valueSchema(field, visit) {
  if (field.resolvedType) {
    const items = sliceItems(field.resolvedType);
    if (items) return { type: 'array', items: valueSchema(items, visit) };
    const name = fullName(field.resolvedType);
    visit(name);
    return { $ref: `#/definitions/${definitionName(name)}` };
  }
  const s = scalars[field.type];
  if (!s) throw new Error(`${field.fullName}: no OpenAPI type for ${field.type}`);
  return { ...s };
}

function fieldSchema(field, visit) {
  const lines = comments.get(fullName(field));
  const m = markers(lines);
  let schema;
  if (field.map) schema = { type: 'object', additionalProperties: valueSchema(field, visit) };
  else if (field.repeated) schema = { type: 'array', items: valueSchema(field, visit) };
  else schema = valueSchema(field, visit);
  const doc = description(lines);
  if (doc) schema.description = doc;
  const one = (k) => m.get(k)?.at(-1);
  if (one('listType')) schema['x-kubernetes-list-type'] = one('listType');
  if (m.has('listMapKey')) schema['x-kubernetes-list-map-keys'] = m.get('listMapKey');
  if (one('mapType')) schema['x-kubernetes-map-type'] = one('mapType');
  if (one('patchStrategy')) schema['x-kubernetes-patch-strategy'] = one('patchStrategy');
  if (one('patchMergeKey')) schema['x-kubernetes-patch-merge-key'] = one('patchMergeKey');
  return schema;
}

/** kind → [{group, kind, version}] of the served and meta kinds, by full message name. */
const kindsOf = new Map();
const servedKinds = new Set();
for (const gv of served) {
  for (const kind of gv.kinds) {
    kindsOf.set(`${gv.pkg}.${kind}`, [{ group: gv.group, kind, version: gv.version }]);
    servedKinds.add(`${gv.pkg}.${kind}`);
  }
}
for (const name of omitEmpty) {
  const [, message, field] = /^(.*)\.(\w+)$/.exec(name);
  if (!root.lookupType(message).fields[field]) throw new Error(`omitEmpty: ${name} is no field`);
}
for (const [kind, gvs] of Object.entries(metaKinds)) {
  kindsOf.set(`${META}.${kind}`, gvs.map((gv) => ({ group: gv.split('/')[0], kind, version: gv.split('/')[1] })));
}
const typeMetaDoc = Object.fromEntries(['apiVersion', 'kind'].map((f) => [f, description(comments.get(`${META}.TypeMeta.${f}`))]));

function messageSchema(name, visit) {
  const lines = comments.get(name);
  const own = ownSchema[name];
  const doc = description(lines);
  if (own) return { ...(doc ? { description: doc } : {}), ...own };
  const type = root.lookupType(name);
  const properties = {};
  const required = [];
  const gvk = kindsOf.get(name);
  if (servedKinds.has(name) || (name.startsWith(`${META}.`) && metaTypeMeta.has(type.name))) {
    for (const f of ['apiVersion', 'kind']) properties[f] = { description: typeMetaDoc[f], type: 'string' };
  }
  for (const field of type.fieldsArray) {
    properties[field.name] = fieldSchema(field, visit);
    if (!markers(comments.get(fullName(field))).has('optional') && !omitEmpty.has(fullName(field))) required.push(field.name);
  }
  const schema = { ...(doc ? { description: doc } : {}), type: 'object' };
  if (Object.keys(properties).length) schema.properties = properties;
  if (required.length) schema.required = required;
  if (gvk) schema['x-kubernetes-group-version-kind'] = gvk;
  const structType = markers(lines).get('structType')?.at(-1);
  if (structType) schema['x-kubernetes-map-type'] = structType;
  return schema;
}

/** The definitions of `roots` and of every message they reference, by definition name. */
function definitionsFrom(roots, { keep } = { keep: () => true }) {
  const out = {};
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !keep(name)) return;
    seen.add(name);
    out[definitionName(name)] = messageSchema(name, visit);
  };
  roots.forEach(visit);
  return out;
}

// version.Info: k8s.io/apimachinery pkg/version/types.go, the one Go struct read here.
function versionInfo() {
  const src = readFileSync(join(inputsDir, 'k8s.io/apimachinery/pkg/version/types.go'), 'utf8');
  const struct = /((?:\/\/.*\n)*)type Info struct \{\n([\s\S]*?)\n\}/.exec(src);
  if (!struct) throw new Error('pkg/version/types.go: no Info struct');
  const typeDoc = description(struct[1].trim().split('\n').map((l) => l.replace(/^\/\/ ?/, '')));
  const properties = {};
  const required = [];
  let pending = [];
  for (const line of struct[2].split('\n').map((l) => l.trim())) {
    if (line.startsWith('//')) {
      pending.push(line.replace(/^\/\/ ?/, ''));
      continue;
    }
    const m = /^\w+\s+string\s+`json:"(\w+)(,omitempty)?"`$/.exec(line);
    if (!m) throw new Error(`pkg/version/types.go: unexpected Info field: ${line}`);
    const doc = description(pending);
    properties[m[1]] = { ...(doc ? { description: doc } : {}), type: 'string' };
    if (!m[2]) required.push(m[1]);
    pending = [];
  }
  return { description: typeDoc, properties, required, type: 'object' };
}

const metaDefinitions = definitionsFrom(metaRoots.map((n) => `${META}.${n}`));
metaDefinitions['io.k8s.apimachinery.pkg.version.Info'] = versionInfo();

const queryParameters = { pretty: prettyParameter };
for (const [name, message] of Object.entries(parameterSources)) {
  const field = root.lookupType(`${META}.${message}`).fields[name];
  if (!field) throw new Error(`${META}.${message} has no field ${name}`);
  const type = field.type === 'bool' ? 'boolean' : field.type.startsWith('int') ? 'integer' : 'string';
  queryParameters[name] = { description: description(comments.get(fullName(field))), in: 'query', name, type, uniqueItems: true };
}

/** A served group version's definitions under Kubernetes' names, and under plat's. */
function kindDefinitions(gv) {
  const k8s = definitionsFrom(gv.kinds.map((k) => `${gv.pkg}.${k}`), { keep: (name) => name.startsWith(`${gv.pkg}.`) });
  const from = definitionName(`${gv.pkg}.`);
  const to = from.replace(/^io\.k8s\./, 'io.plat.');
  let text = JSON.stringify(k8s).replaceAll(`#/definitions/${from}`, `#/definitions/${to}`);
  if (gv.platGroup) text = text.replaceAll(gv.group, gv.platGroup);
  const plat = Object.fromEntries(Object.entries(JSON.parse(text)).map(([k, v]) => [k.replace(from, to), v]));
  return { k8s, plat };
}

// ---------------------------------------------------------------------------------------------
// Protobuf messages: ProtobufMessage tables of @plat/server's body reader.

/** The reader's field type of a protobuf field (a message type is the name of its const). */
function readerType(field, constOf) {
  if (field.map) {
    if (field.keyType !== 'string') throw new Error(`${field.fullName}: map key ${field.keyType}`);
    if (field.type === 'string') return "'stringMap'";
    const items = field.resolvedType && sliceItems(field.resolvedType);
    if (items && items.type === 'string') return "'extraMap'";
    throw new Error(`${field.fullName}: no reader for map<string, ${field.type}>`);
  }
  if (field.resolvedType) {
    const name = fullName(field.resolvedType);
    if (name === `${META}.Time` || name === `${META}.MicroTime`) return "'time'";
    if (name === `${META}.FieldsV1`) return "'fieldsV1'";
    if (ownSchema[name] || sliceItems(field.resolvedType)) throw new Error(`${field.fullName}: no reader for ${name}`);
    return constOf(name);
  }
  const scalar = { string: "'string'", bool: "'bool'", int32: "'int'", int64: "'int'" }[field.type];
  if (!scalar) throw new Error(`${field.fullName}: no reader for ${field.type}`);
  return scalar;
}

/**
 * The consts of `roots` and every message they use, dependencies first, and the names of the
 * `imported` ones they use (messages another generated module exports, by full name).
 */
function protobufConsts(roots, { imported = new Map(), exported = new Map() }) {
  const written = new Set();
  const used = new Set();
  const blocks = [];
  const constName = (name) => {
    if (imported.has(name)) return imported.get(name);
    if (exported.has(name)) return exported.get(name);
    const rest = /^k8s\.io\.(?:api|apimachinery\.pkg\.apis)\.(.*)$/.exec(name)?.[1];
    if (!rest) throw new Error(`no const name for ${name}`);
    return `${rest.split('.').map((p, i) => (i === 0 ? p : cap(p))).join('')}Message`;
  };
  const visit = (name, path) => {
    if (imported.has(name)) {
      used.add(imported.get(name));
      return;
    }
    if (written.has(name)) return;
    if (path.includes(name)) throw new Error(`recursive message ${[...path, name].join(' → ')}`);
    const type = root.lookupType(name);
    const fields = [...type.fieldsArray].sort((a, b) => a.id - b.id).map((f) => {
      const t = readerType(f, (n) => {
        visit(n, [...path, name]);
        return constName(n);
      });
      return `  ${f.id}: { name: '${f.name}', type: ${t}${f.repeated && !f.map ? ', repeated: true' : ''} },`;
    });
    written.add(name);
    const source = name.includes('.apimachinery.') ? 'k8s.io/apimachinery' : 'k8s.io/api';
    blocks.push(`/** ${type.name} of ${source} ${type.parent.fullName.replace(/^\.k8s\.io\.(api|apimachinery)\./, '').replaceAll('.', '/')}. */
${exported.has(name) ? 'export ' : ''}const ${constName(name)}: ProtobufMessage = {\n${fields.join('\n')}\n};`);
  };
  roots.forEach((r) => visit(r, []));
  return { code: blocks.join('\n\n'), used: [...used].sort() };
}

// ---------------------------------------------------------------------------------------------
// Output.

const sortKeys = (value) => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  return value;
};
const json = (value) => JSON.stringify(sortKeys(value), null, 2);
const header = (what) => `// GENERATED by tools/kube-codegen/generate.mjs from Kubernetes' generated.proto files at
// ${provenance}
// (tools/kube-codegen/inputs). ${what}
// Do not edit by hand: run \`node tools/kube-codegen/generate.mjs\`.
`;

const files = {};
files['packages/server/src/openapi/meta-definitions.generated.ts'] = `${header('The meta.k8s.io definitions and the common query parameters.')}import type { OpenApiSchema, OpenApiParameter } from './types.js';

export const metaDefinitions: Record<string, OpenApiSchema> = ${json(metaDefinitions)};

export const queryParameters: Record<string, OpenApiParameter> = ${json(queryParameters)};
`;

// Registry: each served group version's definitions, Kubernetes' and plat's.
const kindExports = [];
for (const gv of served) {
  const { k8s, plat } = kindDefinitions(gv);
  const platDoc = gv.platGroup ? `${gv.platGroup}/${gv.version}` : `the core group's ${gv.version}`;
  kindExports.push(
    `/** ${gv.group || 'core'}/${gv.version} (${gv.kinds.join(', ')}) under Kubernetes' definition names, io.k8s.api.… */\nexport const ${gv.key}KubernetesDefinitions: Record<string, OpenApiSchema> = ${json(k8s)};`,
    `/** The same as served in ${platDoc}, under plat's definition names, io.plat.api.… */\nexport const ${gv.key}Definitions: Record<string, OpenApiSchema> = ${json(plat)};`,
  );
}
// apiextensions.k8s.io/v1 (CustomResourceDefinition): k8s.io/apiextensions-apiserver's types
// carry hand-written OpenAPI (JSONSchemaProps is recursive, JSON and the *Or* types have their own
// schemas), so its definitions are taken as Kubernetes publishes them (api/openapi-spec/swagger.json,
// vendored in inputs/k8s.io/apiextensions-apiserver), under plat's names as the others are.
{
  const from = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
  const to = 'io.plat.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
  const k8s = JSON.parse(readFileSync(join(inputsDir, 'k8s.io/apiextensions-apiserver/openapi-v2-definitions.json'), 'utf8'));
  const text = JSON.stringify(k8s).replaceAll(`#/definitions/${from}`, `#/definitions/${to}`).replaceAll('apiextensions.k8s.io', 'apiextensions.plat.io');
  const plat = Object.fromEntries(Object.entries(JSON.parse(text)).map(([k, v]) => [k.replace(from, to), v]));
  kindExports.push(
    `/** apiextensions.k8s.io/v1 (CustomResourceDefinition, CustomResourceDefinitionList) under Kubernetes' definition names, io.k8s.apiextensions-apiserver.… */\nexport const apiextensionsV1KubernetesDefinitions: Record<string, OpenApiSchema> = ${json(k8s)};`,
    `/** The same as served in apiextensions.plat.io/v1, under plat's definition names, io.plat.apiextensions-apiserver.… */\nexport const apiextensionsV1Definitions: Record<string, OpenApiSchema> = ${json(plat)};`,
  );
}
files['packages/registry/src/kind-definitions.generated.ts'] = `${header('The OpenAPI v2 definitions of the served kinds.')}import type { OpenApiSchema } from '@plat/server';

${kindExports.join('\n\n')}
`;

const metaMessages = new Map([
  [`${META}.ObjectMeta`, 'objectMetaMessage'],
  [`${META}.ListMeta`, 'listMetaMessage'],
  [`${META}.LabelSelector`, 'labelSelectorMessage'],
  [`${META}.LabelSelectorRequirement`, 'selectorRequirementMessage'],
]);
files['packages/server/src/protobuf-messages.generated.ts'] = `${header('The meta/v1 messages the protobuf body reader knows.')}import type { ProtobufMessage } from './protobuf.js';

${protobufConsts([...metaMessages.keys()], { exported: metaMessages }).code}
`;
const kindMessages = new Map();
for (const gv of served) {
  for (const kind of gv.kinds) if (!kind.endsWith('List')) kindMessages.set(`${gv.pkg}.${kind}`, `${gv.key}${kind}Message`);
}
const kindConsts = protobufConsts([...kindMessages.keys()], { imported: metaMessages, exported: kindMessages });
files['packages/registry/src/kind-protobuf.generated.ts'] = `${header('The protobuf messages of the served kinds.')}import { ${kindConsts.used.join(', ')}, type ProtobufMessage } from '@plat/server';

${kindConsts.code}
`;

const out = resolve(option('--out') ?? join(here, '../..'));
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), text);
}
console.log(`wrote ${Object.keys(files).length} files under ${out}`);
