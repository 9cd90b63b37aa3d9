import { createHash } from 'node:crypto';
import type { VersionInfo } from '../version.js';
import { allDefinitions, groupVersionPath, resourcePaths, type ApiOperation, type ApiPath, type OpenApiResource } from './operations.js';
import type { OpenApiParameter, OpenApiSchema } from './types.js';

function v2Operation(op: ApiOperation): Record<string, unknown> {
  const parameters: unknown[] = [];
  if (op.body) parameters.push({ in: 'body', name: 'body', required: op.body.required || undefined, schema: { $ref: op.body.ref } });
  parameters.push(...op.parameters);
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) responses[r.code] = r.ref ? { description: r.description, schema: { $ref: r.ref } } : { description: r.description };
  const out: Record<string, unknown> = {
    consumes: op.consumes,
    description: op.description,
    operationId: op.operationId,
    parameters: parameters.length ? parameters : undefined,
    produces: op.produces,
    responses,
    schemes: ['https'],
    tags: [op.tag],
  };
  if (op.action) out['x-kubernetes-action'] = op.action;
  if (op.gvk) out['x-kubernetes-group-version-kind'] = op.gvk;
  return out;
}

/** The Swagger 2.0 document served at /openapi/v2. */
export function buildOpenApiV2(resources: readonly OpenApiResource[], version: VersionInfo): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const all: ApiPath[] = [];
  const seenGv = new Set<string>();
  for (const def of resources) {
    const gv = `${def.group}/${def.version}`;
    if (!seenGv.has(gv)) {
      seenGv.add(gv);
      all.push(groupVersionPath(def.group, def.version));
    }
    all.push(...resourcePaths(def));
  }
  for (const p of all) {
    const item: Record<string, unknown> = {};
    for (const op of p.operations) item[op.method] = v2Operation(op);
    if (p.parameters.length) item['parameters'] = p.parameters;
    paths[p.path] = item;
  }
  return {
    swagger: '2.0',
    info: { title: 'Plat', version: version.gitVersion },
    paths,
    definitions: allDefinitions(resources),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}

function toV3Refs<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/definitions/', '"#/components/schemas/')) as T;
}

function v3Parameter(p: OpenApiParameter): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: p.type ?? 'string' };
  if (p.uniqueItems) schema['uniqueItems'] = true;
  const out: Record<string, unknown> = { name: p.name, in: p.in, description: p.description, schema };
  if (p.required) out['required'] = true;
  return out;
}

function v3Operation(op: ApiOperation): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) {
    responses[r.code] = r.ref
      ? { description: r.description, content: Object.fromEntries(op.produces.map((t) => [t, { schema: { $ref: r.ref } }])) }
      : { description: r.description };
  }
  const out: Record<string, unknown> = {
    tags: [op.tag],
    description: op.description,
    operationId: op.operationId,
    parameters: op.parameters.length ? op.parameters.map(v3Parameter) : undefined,
    responses,
  };
  if (op.body) {
    out['requestBody'] = {
      content: Object.fromEntries(op.consumes.map((t) => [t, { schema: { $ref: op.body!.ref } }])),
      required: op.body.required || undefined,
    };
  }
  if (op.action) out['x-kubernetes-action'] = op.action;
  if (op.gvk) out['x-kubernetes-group-version-kind'] = op.gvk;
  return toV3Refs(out);
}

/** One OpenAPI 3.0 document per group version, as /openapi/v3/apis/<group>/<version> serves it. */
export function buildOpenApiV3(resources: readonly OpenApiResource[], group: string, version: string, info: VersionInfo): Record<string, unknown> | undefined {
  const defs = resources.filter((r) => r.group === group && r.version === version);
  if (defs.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const p of [groupVersionPath(group, version), ...defs.flatMap(resourcePaths)]) {
    const item: Record<string, unknown> = {};
    for (const op of p.operations) item[op.method] = v3Operation(op);
    if (p.parameters.length) item['parameters'] = p.parameters.map(v3Parameter);
    paths[p.path] = item;
  }
  const schemas: Record<string, OpenApiSchema> = toV3Refs(allDefinitions(defs));
  return {
    openapi: '3.0.0',
    info: { title: 'Plat', version: info.gitVersion },
    paths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
  };
}

/** Kubernetes' content hash for OpenAPI v3 documents (used in serverRelativeURL and ETag). */
export function documentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase();
}
