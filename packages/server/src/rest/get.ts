import type { GetOptions } from '@plat/storage';
import { requestOf, type RequestCarrier, type RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { wantsPretty, writeBody, writeObject } from '../response.js';
import { parseIncludeObject, toTable } from '../table.js';
import { encodedObject, scopeKey, withTypeMeta, type ResourceScope } from './scope.js';

/** GET .../<resource>/<name>: 200 with the object (or a one-row Table). */
export async function getResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['Table', 'PartialObjectMetadata'] });
  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const rv = ctx.query.get('resourceVersion') ?? undefined;
  // A get is one short read: the signal only tells whether the request was aborted before it
  // started, which an uncreated signal cannot be. The mark lets tracing find the request.
  const opts: GetOptions & RequestCarrier = { resourceVersion: rv, signal: ctx.signalIfCreated, [requestOf]: ctx };
  const stored = await scope.storage.get(scopeKey(scope, ctx.info.namespace, ctx.info.name), opts);
  if (choice.as === undefined && choice.format === 'json' && !wantsPretty(ctx)) {
    // The common answer: the object's compact JSON, encoded once per stored revision.
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
