import { encodeJson, newBadRequest } from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { contentTypeOf, decodeObjectBody, readBody } from '../request-body.js';
import { writeObject } from '../response.js';
import type { ResourceScope } from './scope.js';

/**
 * POST to a create-only resource (Kubernetes' rest.Creater without storage: the review APIs):
 * the body decoded (JSON when no content type is sent), its kind and apiVersion checked against
 * the path, and 201 with the resource's answer. Nothing is stored, so there is no dryRun,
 * fieldManager or managedFields.
 */
export async function createOnlyResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const create = scope.def.createOnly!;
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const body = await readBody(ctx, scope.maxBodyBytes);
  const { kind } = scope.def;
  const object = decodeObjectBody(body, contentTypeOf(ctx) || 'application/json', false, kind, scope.protobufKinds).value as Record<string, unknown>;
  ctx.audit?.logRequestObject(object);
  if (object.kind !== undefined && object.kind !== kind) {
    throw newBadRequest(`the kind of the body ${encodeJson(object.kind)} does not match the resource: expected ${JSON.stringify(kind)}`);
  }
  if (object.apiVersion !== undefined && object.apiVersion !== scope.apiVersion) {
    throw newBadRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${scope.apiVersion})`);
  }
  const answer = await create({ object, group: scope.def.group, user: ctx.user!, authorizer: scope.authorizer, scope: ctx, signal: ctx.signal });
  writeObject(ctx, 201, answer, choice);
}
