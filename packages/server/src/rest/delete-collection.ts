import { fieldError, isStatusError, type ApiObject } from '@plat/api-model';
import { invalidOptions } from './options.js';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { writeObject } from '../response.js';
import { admitDelete, deleteObject } from './delete.js';
import { parseDeleteOptions } from './delete-options.js';
import { parseListOptions } from './list-options.js';
import { scopePrefix, servedItem, type ResourceScope } from './scope.js';

/**
 * DELETE .../<resource>: deletes every object the selectors match and answers the list of what
 * was deleted (kube-apiserver's generic store does the same).
 */
export async function deleteCollection(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const listOpts = parseListOptions(scope, ctx, { watch: false });
  const opts = await parseDeleteOptions(scope, ctx);
  if (opts.ignoreStoreReadError) {
    // Kubernetes allows the unsafe delete only for a single object.
    throw invalidOptions('DeleteOptions', [
      fieldError.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
  const listed = await scope.storage.list(scopePrefix(scope, ctx.info.namespace), {
    resourceVersion: listOpts.resourceVersion,
    resourceVersionMatch: listOpts.resourceVersionMatch,
    predicate: listOpts.matches,
    signal: ctx.signal,
    request: ctx,
  });
  const deleted: ApiObject[] = [];
  for (const item of listed.items) {
    const name = item.metadata?.name ?? '';
    try {
      const outcome = await deleteObject(
        scope,
        scope.storage,
        item.metadata?.namespace ?? '',
        name,
        { ...opts, preconditions: undefined },
        { signal: ctx.signal, request: ctx },
        admitDelete(scope, ctx, opts.dryRun),
      );
      deleted.push(outcome.object);
    } catch (err) {
      // Deleted by someone else in the meantime: nothing left to do for it.
      if (!isStatusError(err, 'NotFound')) throw err;
    }
  }
  const items = deleted.map((o) => servedItem(scope, o));
  writeObject(ctx, 200, { kind: scope.def.listKind, apiVersion: scope.apiVersion, metadata: { resourceVersion: listed.resourceVersion }, items }, choice);
}
