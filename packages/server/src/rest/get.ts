import type { GetOptions } from '@plat/storage';
import { RequestCallOptions, type RequestContext } from '../context.js';
import { outputNegotiator } from '../negotiation.js';
import { requestHeader } from '../request-header.js';
import { wantsPretty, writeBody, writeObject } from '../response.js';
import { parseIncludeObject, toTable } from '../table.js';
import { encodedObject, scopeKey, withTypeMeta, type ResourceScope } from './scope.js';

/**
 * A get's storage options: the request's signal, made only if the backend reads it (etcd3 does,
 * to cancel its call when the client goes away or the deadline passes; memory and SQLite answer
 * in one step and do not), and the request for tracing.
 */
class GetCall extends RequestCallOptions implements GetOptions {
  constructor(
    ctx: RequestContext,
    readonly resourceVersion: string | undefined,
  ) {
    super(ctx);
  }
}

const negotiateGetOutput = outputNegotiator(['Table', 'PartialObjectMetadata']);

/** GET .../<resource>/<name>: 200 with the object (or a one-row Table). */
export async function getResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateGetOutput(requestHeader(ctx.req, 'accept'));
  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const rv = ctx.query.get('resourceVersion') ?? undefined;
  const stored = await scope.storage.get(scopeKey(scope, ctx.info.namespace, ctx.info.name), new GetCall(ctx, rv));
  if (choice.as === undefined && choice.format === 'json' && !wantsPretty(ctx)) {
    // The common answer: the object's compact JSON, encoded once per stored revision.
    if (ctx.audit?.level === 'RequestResponse') ctx.audit.logResponseObject(withTypeMeta(scope, stored));
    writeBody(ctx, 200, choice.contentType, encodedObject(scope, stored));
    return;
  }
  const obj = withTypeMeta(scope, stored);
  if (choice.as === 'Table') {
    writeObject(ctx, 200, toTable(scope.def, [obj], { choice, includeObject, withColumns: true, listMeta: { resourceVersion: obj.metadata?.resourceVersion } }), choice);
    return;
  }
  if (choice.as === 'PartialObjectMetadata') {
    writeObject(ctx, 200, { kind: 'PartialObjectMetadata', apiVersion: `${choice.group}/${choice.version}`, metadata: obj.metadata ?? {} }, choice);
    return;
  }
  writeObject(ctx, 200, obj, choice);
}
