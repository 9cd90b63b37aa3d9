import type { ApiObject } from '@plat/api-model';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { wantsPretty, writeBody, writeObject } from '../response.js';
import { parseIncludeObject, toTable } from '../table.js';
import { parseListOptions } from './list-options.js';
import { scopePrefix, servedItem, withTypeMeta, type ResourceScope } from './scope.js';

/** GET .../<resource>: the list, filtered by selectors, paginated with limit/continue. */
export async function listResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['Table', 'PartialObjectMetadataList'] });
  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const opts = parseListOptions(scope, ctx, { watch: false });
  const result = await scope.storage.list(scopePrefix(scope, ctx.info.namespace), {
    limit: opts.limit && opts.limit > 0 ? opts.limit : undefined,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    predicate: opts.labelSelector.isEmpty() && opts.fieldSelector.isEmpty() ? undefined : opts.matches,
    // Every answer below only encodes the items (new objects where a form differs), as a GET does
    // with the read cache's frozen object: the watch cache hands back its own objects, found by
    // identity in EncodedObjects.
    readOnly: true,
    signal: ctx.signal,
    request: ctx,
  });
  const listMeta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) listMeta['continue'] = result.continue;
  if (result.remainingItemCount !== undefined && result.continue) listMeta['remainingItemCount'] = result.remainingItemCount;
  if (choice.as === 'Table') {
    const items = result.items.map((o) => withTypeMeta(scope, o));
    writeObject(ctx, 200, toTable(scope.def, items, { choice, includeObject, withColumns: true, listMeta }), choice);
    return;
  }
  if (choice.as === 'PartialObjectMetadataList') {
    const apiVersion = `${choice.group}/${choice.version}`;
    writeObject(
      ctx,
      200,
      {
        kind: 'PartialObjectMetadataList',
        apiVersion,
        metadata: listMeta,
        items: result.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata ?? {} })),
      },
      choice,
    );
    return;
  }
  if (choice.as === undefined && choice.format === 'json' && !wantsPretty(ctx)) {
    // The common answer: each item's kept compact JSON joined inside the list's envelope, the
    // same bytes as encoding the whole list (EncodedObjects says what it buys).
    if (ctx.audit?.level === 'RequestResponse') ctx.audit.logResponseObject(typedList(scope, listMeta, result.items));
    const body = scope.encodings.list(scope.encodingView, scope.def.listKind, listMeta, result.items);
    // Its memory serves a later LIST once this response is written out (ListBuffers says why).
    ctx.res.once('finish', () => scope.encodings.release(body));
    writeBody(ctx, 200, choice.contentType, body);
    return;
  }
  writeObject(ctx, 200, typedList(scope, listMeta, result.items), choice);
}

/** The list as served. Items of a typed list carry no kind/apiVersion of their own, as kube-apiserver encodes them. */
function typedList(scope: ResourceScope, listMeta: Record<string, unknown>, stored: readonly ApiObject[]): ApiObject {
  const items = stored.map((o) => servedItem(scope, o));
  return { kind: scope.def.listKind, apiVersion: scope.apiVersion, metadata: listMeta, items } as ApiObject;
}
