import { metaDefinitions, queryParameters } from './meta-definitions.generated.js';
import type { OpenApiParameter, OpenApiSchema } from './types.js';
import type { ResourceDefinition } from '../resource.js';

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
  if (!p) throw new Error(`unknown query parameter ${name}`);
  return p;
}

/** `certificates.plat.io` → `Certificates`, `v1alpha1` → `V1alpha1`, as Kubernetes names operations. */
function opPrefix(def: ResourceDefinition): string {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const groupWord = def.group ? def.group.split('.')[0]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) : 'Core';
  return `${cap(groupWord)}${cap(def.version)}`;
}

export function tagFor(group: string, version: string): string {
  return `${group ? group.split('.')[0]!.replace(/-/g, '_') : 'core'}_${version}`;
}

/** The operations Kubernetes publishes for a cluster-scoped resource. */
export function resourcePaths(def: ResourceDefinition): ApiPath[] {
  const base = `/apis/${def.group}/${def.version}`;
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const tag = tagFor(def.group, def.version);
  const prefix = opPrefix(def);
  const kindRef = `#/definitions/${def.definitionName}`;
  const listRef = `#/definitions/${def.definitionName}List`;
  const nameParam: OpenApiParameter = { name: 'name', in: 'path', description: `name of the ${def.kind}`, required: true, type: 'string', uniqueItems: true };
  const listParams = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'].map(q);
  const writeParams = ['dryRun', 'fieldManager', 'fieldValidation'].map(q);
  const common = { tag, gvk };
  return [
    {
      path: `${base}/${def.resource}`,
      parameters: [q('pretty')],
      operations: [
        {
          ...common,
          method: 'get',
          operationId: `list${prefix}${def.kind}`,
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
          operationId: `create${prefix}${def.kind}`,
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
        {
          ...common,
          method: 'delete',
          operationId: `delete${prefix}Collection${def.kind}`,
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
        },
      ],
    },
    {
      path: `${base}/${def.resource}/{name}`,
      parameters: [nameParam, q('pretty')],
      operations: [
        {
          ...common,
          method: 'get',
          operationId: `read${prefix}${def.kind}`,
          description: `read the specified ${def.kind}`,
          action: 'get',
          parameters: [],
          consumes: ['*/*'],
          produces,
          responses: [{ code: '200', description: 'OK', ref: kindRef }, { code: '401', description: 'Unauthorized' }],
        },
        {
          ...common,
          method: 'put',
          operationId: `replace${prefix}${def.kind}`,
          description: `replace the specified ${def.kind}`,
          action: 'put',
          parameters: writeParams,
          body: { ref: kindRef, required: true },
          consumes: ['*/*'],
          produces,
          responses: [
            { code: '200', description: 'OK', ref: kindRef },
            { code: '201', description: 'Created', ref: kindRef },
            { code: '401', description: 'Unauthorized' },
          ],
        },
        {
          ...common,
          method: 'patch',
          operationId: `patch${prefix}${def.kind}`,
          description: `partially update the specified ${def.kind}`,
          action: 'patch',
          parameters: [...writeParams, q('force')],
          body: { ref: metaRef('Patch'), required: true },
          consumes: patchTypes,
          produces,
          responses: [
            { code: '200', description: 'OK', ref: kindRef },
            { code: '201', description: 'Created', ref: kindRef },
            { code: '401', description: 'Unauthorized' },
          ],
        },
        {
          ...common,
          method: 'delete',
          operationId: `delete${prefix}${def.kind}`,
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
    {
      path: `${base}/watch/${def.resource}`,
      parameters: [...listParams, q('pretty')],
      operations: [
        {
          ...common,
          method: 'get',
          operationId: `watch${prefix}${def.kind}List`,
          description: `watch individual changes to a list of ${def.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
          action: 'watchlist',
          parameters: [],
          consumes: ['*/*'],
          produces: watchProduces,
          responses: [{ code: '200', description: 'OK', ref: metaRef('WatchEvent') }, { code: '401', description: 'Unauthorized' }],
        },
      ],
    },
  ];
}

/** GET /apis/<group>/<version>/: the APIResourceList. */
export function groupVersionPath(group: string, version: string): ApiPath {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return {
    path: `/apis/${group}/${version}/`,
    parameters: [],
    operations: [
      {
        method: 'get',
        operationId: `get${cap(group.split('.')[0]!)}${cap(version)}APIResources`,
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
export function allDefinitions(resources: readonly ResourceDefinition[]): Record<string, OpenApiSchema> {
  const defs: Record<string, OpenApiSchema> = { ...metaDefinitions };
  for (const r of resources) Object.assign(defs, r.definitions);
  return defs;
}
