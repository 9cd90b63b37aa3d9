import { ok as assert } from 'node:assert';
import { metaDefinitions, queryParameters } from './meta-definitions.generated.js';
import type { OpenApiParameter, OpenApiSchema } from './types.js';
import { allVerbs, type ResourceDefinition } from '../resource.js';

/** What the OpenAPI documents need of a served resource (stored ones and the create-only reviews). */
export type OpenApiResource = Pick<ResourceDefinition, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'definitionName' | 'definitions' | 'verbs' | 'subresources'>;

/** One operation of the HTTP API, neutral between OpenAPI v2 and v3. */
export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  operationId: string;
  description: string;
  tag: string;
  action?: string;
  gvk?: { group: string; version: string; kind: string };
  /** Query parameters (by name from the shared table) and the path's `name` parameter. */
  parameters: OpenApiParameter[];
  body?: { ref: string; required: boolean };
  consumes: string[];
  produces: string[];
  responses: Array<{ code: string; description: string; ref?: string }>;
}

export interface ApiPath {
  path: string;
  /** Parameters shared by every operation of the path. */
  parameters: OpenApiParameter[];
  operations: ApiOperation[];
}

export const metaRef = (name: string) => `#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.${name}`;
const produces = ['application/json', 'application/yaml'];
const watchProduces = [...produces, 'application/json;stream=watch'];
const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function q(name: string): OpenApiParameter {
  const p = queryParameters[name];
  assert(p, `unknown query parameter ${name}`); // an invariant: the builder names only parameters it declares
  return p;
}

/**
 * The word Kubernetes' OpenAPI builder makes of a group for operation ids and tags: the group
 * without its `.k8s.io` suffix (here also `.plat.io`), camel-cased at dots and dashes
 * (`rbac.authorization.plat.io` → `rbacAuthorization`); the core group is `core`.
 */
function groupWord(group: string): string {
  if (!group) return 'core';
  const trimmed = group.replace(/\.(k8s|plat)\.io$/, '');
  return trimmed.replace(/[.-]([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[.-]/g, '');
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `RbacAuthorizationV1`, `CertificatesV1alpha1`, `CoreV1`: the infix of operation ids. */
function opPrefix(group: string, version: string): string {
  return `${cap(groupWord(group))}${cap(version)}`;
}

export function tagFor(group: string, version: string): string {
  return `${groupWord(group)}_${version}`;
}

/** `/apis/<group>/<version>`, or `/api/v1` for the core group. */
export function groupVersionBase(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

const listParamNames = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];

/**
 * The operations Kubernetes publishes for a resource: for a cluster-scoped one the collection,
 * the object and the deprecated watch paths; for a namespaced one the same under
 * `/namespaces/{namespace}` (operation ids with `Namespaced`), and list and watch across
 * namespaces (`...ForAllNamespaces`).
 */
export function resourcePaths(def: OpenApiResource): ApiPath[] {
  const base = groupVersionBase(def.group, def.version);
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const tag = tagFor(def.group, def.version);
  const prefix = opPrefix(def.group, def.version);
  const kindRef = `#/definitions/${def.definitionName}`;
  const listRef = `#/definitions/${def.definitionName}List`;
  const nameParam: OpenApiParameter = { name: 'name', in: 'path', description: `name of the ${def.kind}`, required: true, type: 'string', uniqueItems: true };
  const namespaceParam: OpenApiParameter = {
    name: 'namespace',
    in: 'path',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
    type: 'string',
    uniqueItems: true,
  };
  const listParams = listParamNames.map(q);
  const writeParams = ['dryRun', 'fieldManager', 'fieldValidation'].map(q);
  const common = { tag, gvk };
  const verbs = def.verbs ?? allVerbs;
  const ns = def.namespaced ? 'Namespaced' : '';
  const nsPath = def.namespaced ? '/namespaces/{namespace}' : '';
  const nsParams = def.namespaced ? [namespaceParam] : [];
  const collection = `${base}${nsPath}/${def.resource}`;

  const collectionOps: ApiOperation[] = [
    {
      ...common,
      method: 'get',
      operationId: `list${prefix}${ns}${def.kind}`,
      description: `list or watch objects of kind ${def.kind}`,
      action: 'list',
      parameters: listParams,
      consumes: ['*/*'],
      produces: watchProduces,
      responses: [{ code: '200', description: 'OK', ref: listRef }, { code: '401', description: 'Unauthorized' }],
    },
    {
      ...common,
      method: 'post',
      operationId: `create${prefix}${ns}${def.kind}`,
      description: `create a ${def.kind}`,
      action: 'post',
      parameters: writeParams,
      body: { ref: kindRef, required: true },
      consumes: ['*/*'],
      produces,
      responses: [
        { code: '200', description: 'OK', ref: kindRef },
        { code: '201', description: 'Created', ref: kindRef },
        { code: '202', description: 'Accepted', ref: kindRef },
        { code: '401', description: 'Unauthorized' },
      ],
    },
  ];
  // A create-only resource (the reviews) has the collection path with POST alone, as Kubernetes'.
  if (!verbs.includes('list')) return [{ path: collection, parameters: [...nsParams, q('pretty')], operations: [collectionOps[1]!] }];
  if (verbs.includes('deletecollection')) {
    collectionOps.push({
      ...common,
      method: 'delete',
      operationId: `delete${prefix}Collection${ns}${def.kind}`,
      description: `delete collection of ${def.kind}`,
      action: 'deletecollection',
      parameters: [
        'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential',
        'labelSelector', 'limit', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds',
      ].map(q),
      body: { ref: metaRef('DeleteOptions'), required: false },
      consumes: ['*/*'],
      produces,
      responses: [{ code: '200', description: 'OK', ref: metaRef('Status') }, { code: '401', description: 'Unauthorized' }],
    });
  }
  // What a PUT or PATCH of one object answers.
  const updateResponses = [
    { code: '200', description: 'OK', ref: kindRef },
    { code: '201', description: 'Created', ref: kindRef },
    { code: '401', description: 'Unauthorized' },
  ];
  // A PUT of one object, or of one of its subresources (Kubernetes' `replaceCoreV1NamespaceFinalize`).
  const replace = (operationId: string, description: string, parameters: OpenApiParameter[]): ApiOperation => ({
    ...common,
    method: 'put',
    operationId,
    description,
    action: 'put',
    parameters,
    body: { ref: kindRef, required: true },
    consumes: ['*/*'],
    produces,
    responses: updateResponses,
  });
  const watchList = (path: string, operationId: string, pathParams: OpenApiParameter[]): ApiPath => ({
    path,
    parameters: [...listParams, ...pathParams, q('pretty')],
    operations: [
      {
        ...common,
        method: 'get',
        operationId,
        description: `watch individual changes to a list of ${def.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        action: 'watchlist',
        parameters: [],
        consumes: ['*/*'],
        produces: watchProduces,
        responses: [{ code: '200', description: 'OK', ref: metaRef('WatchEvent') }, { code: '401', description: 'Unauthorized' }],
      },
    ],
  });
  const paths: ApiPath[] = [
    { path: collection, parameters: [...nsParams, q('pretty')], operations: collectionOps },
    {
      path: `${collection}/{name}`,
      parameters: [nameParam, ...nsParams, q('pretty')],
      operations: [
        {
          ...common,
          method: 'get',
          operationId: `read${prefix}${ns}${def.kind}`,
          description: `read the specified ${def.kind}`,
          action: 'get',
          parameters: [],
          consumes: ['*/*'],
          produces,
          responses: [{ code: '200', description: 'OK', ref: kindRef }, { code: '401', description: 'Unauthorized' }],
        },
        replace(`replace${prefix}${ns}${def.kind}`, `replace the specified ${def.kind}`, writeParams),
        {
          ...common,
          method: 'patch',
          operationId: `patch${prefix}${ns}${def.kind}`,
          description: `partially update the specified ${def.kind}`,
          action: 'patch',
          parameters: [...writeParams, q('force')],
          body: { ref: metaRef('Patch'), required: true },
          consumes: patchTypes,
          produces,
          responses: updateResponses,
        },
        {
          ...common,
          method: 'delete',
          operationId: `delete${prefix}${ns}${def.kind}`,
          description: `delete a ${def.kind}`,
          action: 'delete',
          parameters: ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'propagationPolicy'].map(q),
          body: { ref: metaRef('DeleteOptions'), required: false },
          consumes: ['*/*'],
          produces,
          responses: [
            { code: '200', description: 'OK', ref: metaRef('Status') },
            { code: '202', description: 'Accepted', ref: metaRef('Status') },
            { code: '401', description: 'Unauthorized' },
          ],
        },
      ],
    },
    // A subresource's PUT, as Kubernetes publishes `replaceCoreV1NamespaceFinalize`: the write
    // options on the path, the object as body and answer.
    ...Object.keys(def.subresources ?? {}).map((sub) => ({
      path: `${collection}/{name}/${sub}`,
      parameters: [...writeParams, nameParam, ...nsParams, q('pretty')],
      operations: [replace(`replace${prefix}${ns}${def.kind}${cap(sub)}`, `replace ${sub} of the specified ${def.kind}`, [])],
    })),
    watchList(`${base}/watch${nsPath}/${def.resource}`, `watch${prefix}${ns}${def.kind}List`, nsParams),
    {
      path: `${base}/watch${nsPath}/${def.resource}/{name}`,
      parameters: [...listParams, nameParam, ...nsParams, q('pretty')],
      operations: [
        {
          ...common,
          method: 'get',
          operationId: `watch${prefix}${ns}${def.kind}`,
          description: `watch changes to an object of kind ${def.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
          action: 'watch',
          parameters: [],
          consumes: ['*/*'],
          produces: watchProduces,
          responses: [{ code: '200', description: 'OK', ref: metaRef('WatchEvent') }, { code: '401', description: 'Unauthorized' }],
        },
      ],
    },
  ];
  if (def.namespaced) {
    paths.push(
      {
        path: `${base}/${def.resource}`,
        parameters: [...listParams, q('pretty')],
        operations: [{ ...collectionOps[0]!, operationId: `list${prefix}${def.kind}ForAllNamespaces`, parameters: [] }],
      },
      watchList(`${base}/watch/${def.resource}`, `watch${prefix}${def.kind}ListForAllNamespaces`, []),
    );
  }
  return paths;
}

/** GET /apis/<group>/<version>/ (or /api/v1/): the APIResourceList. */
export function groupVersionPath(group: string, version: string): ApiPath {
  return {
    path: `${groupVersionBase(group, version)}/`,
    parameters: [],
    operations: [
      {
        method: 'get',
        operationId: `get${opPrefix(group, version)}APIResources`,
        description: 'get available resources',
        tag: tagFor(group, version),
        parameters: [],
        consumes: produces,
        produces,
        responses: [{ code: '200', description: 'OK', ref: metaRef('APIResourceList') }, { code: '401', description: 'Unauthorized' }],
      },
    ],
  };
}

/** The definitions every document carries: meta.k8s.io types plus each resource's own. */
export function allDefinitions(resources: readonly OpenApiResource[]): Record<string, OpenApiSchema> {
  const defs: Record<string, OpenApiSchema> = { ...metaDefinitions };
  for (const r of resources) Object.assign(defs, r.definitions);
  return defs;
}
