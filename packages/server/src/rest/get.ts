import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { writeObject } from '../response.js';
import { parseIncludeObject, toTable } from '../table.js';
import { scopeKey, withTypeMeta, type ResourceScope } from './scope.js';

/** GET .../<resource>/<name>: 200 with the object (or a one-row Table). */
export async function getResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['Table', 'PartialObjectMetadata'] });
  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const rv = ctx.query.get('resourceVersion') ?? undefined;
  const stored = await scope.storage.get(scopeKey(scope, ctx.info.name), { resourceVersion: rv, signal: ctx.signal });
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
