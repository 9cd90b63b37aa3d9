// Generates src/openapi/meta-definitions.generated.ts from Kubernetes' OpenAPI v2 document:
// the meta.k8s.io/v1 definitions our resources reference (ObjectMeta, ListMeta, Status,
// DeleteOptions, WatchEvent, LabelSelector, discovery types, version.Info), the definitions of the
// kinds we serve (ClusterTrustBundle, the RBAC kinds, Namespace) and the common query parameters.
// Usage: node packages/server/tools/gen-meta-definitions.mjs openapi-v2.json
// (Kubernetes' OpenAPI v2 document: api/openapi-spec/swagger.json of kubernetes/kubernetes)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.argv[2];
if (!source) throw new Error('usage: node packages/server/tools/gen-meta-definitions.mjs openapi-v2.json');
const doc = JSON.parse(readFileSync(source, 'utf8'));
const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const roots = [
  'ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'WatchEvent', 'Patch', 'APIResourceList',
  'APIGroupList', 'APIGroup', 'APIVersions', 'LabelSelector', 'FieldSelectorRequirement',
].map((n) => meta + n).concat(['io.k8s.apimachinery.pkg.version.Info']);

const definitions = {};
const visit = (name) => {
  if (definitions[name]) return;
  const def = doc.definitions[name];
  if (!def) throw new Error(`missing definition ${name}`);
  definitions[name] = def;
  JSON.stringify(def, (k, v) => {
    if (k === '$ref' && typeof v === 'string') visit(v.replace('#/definitions/', ''));
    return v;
  });
};
roots.forEach(visit);

// Query parameters by name, as the list/create/update/patch/delete operations use them.
const wanted = new Set([
  'allowWatchBookmarks', 'continue', 'dryRun', 'fieldManager', 'fieldSelector', 'fieldValidation', 'force',
  'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'labelSelector', 'limit', 'pretty',
  'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch',
]);
const parameters = {};
const ctbPaths = ['/apis/certificates.k8s.io/v1alpha1/clustertrustbundles', '/apis/certificates.k8s.io/v1alpha1/clustertrustbundles/{name}'];
for (const pathName of ctbPaths) {
  const item = doc.paths[pathName];
  for (const op of [item, ...Object.values(item)]) {
    for (let p of op.parameters ?? []) {
      if (p.$ref) p = doc.parameters[p.$ref.replace('#/parameters/', '')];
      if (p.in === 'query' && wanted.has(p.name) && !parameters[p.name]) parameters[p.name] = p;
    }
  }
}
// ClusterTrustBundle's own definitions, under our group and definition prefix.
const ctb = {};
for (const kind of ['ClusterTrustBundle', 'ClusterTrustBundleSpec', 'ClusterTrustBundleList']) {
  const text = JSON.stringify(doc.definitions[`io.k8s.api.certificates.v1alpha1.${kind}`])
    .replaceAll('#/definitions/io.k8s.api.certificates.v1alpha1.', '#/definitions/io.plat.api.certificates.v1alpha1.')
    .replaceAll('certificates.k8s.io', 'certificates.plat.io');
  ctb[`io.plat.api.certificates.v1alpha1.${kind}`] = JSON.parse(text);
}
// A group's definitions copied from Kubernetes' (`io.k8s.api.<from>.`), renamed to `io.plat.api.<to>.`
// with the brand rule applied to group names in them; `to` undefined keeps Kubernetes' names.
const copyDefinitions = (from, kinds, to, groupRename) => {
  const out = {};
  for (const kind of kinds) {
    let text = JSON.stringify(doc.definitions[`io.k8s.api.${from}.${kind}`]);
    if (to) text = text.replaceAll(`#/definitions/io.k8s.api.${from}.`, `#/definitions/io.plat.api.${to}.`);
    if (groupRename) text = text.replaceAll(groupRename[0], groupRename[1]);
    out[`io.${to ? 'plat' : 'k8s'}.api.${to ?? from}.${kind}`] = JSON.parse(text);
  }
  return out;
};
const rbacKinds = [
  'AggregationRule', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'ClusterRoleList', 'PolicyRule',
  'Role', 'RoleBinding', 'RoleBindingList', 'RoleList', 'RoleRef', 'Subject',
];
// rbac.authorization.plat.io/v1, and the same kinds under Kubernetes' own names for the
// rbac.authorization.k8s.io/v1 group served next to it.
const rbac = copyDefinitions('rbac.v1', rbacKinds, 'rbac.v1', ['rbac.authorization.k8s.io', 'rbac.authorization.plat.io']);
const rbacKubernetes = copyDefinitions('rbac.v1', rbacKinds);
// The core group's Namespace (no group name to rename; the definition prefix takes the brand).
const namespace = copyDefinitions('core.v1', ['Namespace', 'NamespaceCondition', 'NamespaceList', 'NamespaceSpec', 'NamespaceStatus'], 'core.v1');
// The review kinds (authorization.plat.io/v1, authentication.plat.io/v1), and the same under
// Kubernetes' names for the authorization.k8s.io/v1 and authentication.k8s.io/v1 aliases.
const authorizationKinds = [
  'FieldSelectorAttributes', 'LabelSelectorAttributes', 'NonResourceAttributes', 'NonResourceRule', 'ResourceAttributes',
  'ResourceRule', 'SelfSubjectAccessReview', 'SelfSubjectAccessReviewSpec', 'SelfSubjectRulesReview',
  'SelfSubjectRulesReviewSpec', 'SubjectAccessReview', 'SubjectAccessReviewSpec', 'SubjectAccessReviewStatus',
  'SubjectRulesReviewStatus',
];
const authenticationKinds = ['SelfSubjectReview', 'SelfSubjectReviewStatus', 'UserInfo'];
const reviews = {
  ...copyDefinitions('authorization.v1', authorizationKinds, 'authorization.v1', ['authorization.k8s.io', 'authorization.plat.io']),
  ...copyDefinitions('authentication.v1', authenticationKinds, 'authentication.v1', ['authentication.k8s.io', 'authentication.plat.io']),
};
const reviewsKubernetes = { ...copyDefinitions('authorization.v1', authorizationKinds), ...copyDefinitions('authentication.v1', authenticationKinds) };
const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
const out = `// GENERATED by packages/server/tools/gen-meta-definitions.mjs from Kubernetes' OpenAPI v2
// document. Do not edit by hand.
import type { OpenApiSchema, OpenApiParameter } from './types.js';

export const metaDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(definitions), null, 2)};

export const clusterTrustBundleDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(ctb, null, 2)};

export const rbacDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(rbac), null, 2)};

export const kubernetesRbacDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(rbacKubernetes), null, 2)};

export const reviewDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(reviews), null, 2)};

export const kubernetesReviewDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(reviewsKubernetes), null, 2)};

export const namespaceDefinitions: Record<string, OpenApiSchema> = ${JSON.stringify(sorted(namespace), null, 2)};

export const queryParameters: Record<string, OpenApiParameter> = ${JSON.stringify(sorted(parameters), null, 2)};
`;
writeFileSync(path.join(here, '../src/openapi/meta-definitions.generated.ts'), out);
console.log(`${Object.keys(definitions).length} definitions, ${Object.keys(parameters).length} parameters`);
