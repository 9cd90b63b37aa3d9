import { resourcePath, type KubeObject } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError, errorText } from '../errors.js';
import { mapObject, noResourcesError, type Target } from './resource-target.js';

/** `clientctl delete`: by name, by file, by selector or --all; prints `<kind>.<group> "<name>" deleted`. */
export async function runDelete(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const args = f.args;
  const dryRun = ctx.dryRun();
  if (dryRun === 'client') throw new CommandError('--dry-run=client is not supported by delete; use --dry-run=server');
  const cascade = f.str('cascade');
  const propagation = { background: 'Background', foreground: 'Foreground', orphan: 'Orphan', true: 'Background', false: 'Orphan' }[cascade];
  if (!propagation) throw new CommandError(`invalid cascade value (${cascade}). Must be "background", "foreground", or "orphan".`);
  const targets: Target[] = [];
  const rest = ctx.rest();
  if (f.list('filename').length || f.str('kustomize')) {
    for (const info of await ctx.resources()) targets.push(await mapObject(ctx, info));
  } else if (!args.length) {
    throw noResourcesError();
  } else if (args[0].includes('/') || args.length > 1) {
    const { targetsFromArgs } = await import('./resource-target.js');
    targets.push(...(await targetsFromArgs(ctx, args)));
  } else {
    if (!f.bool('all') && !f.str('selector') && !f.str('field-selector')) {
      throw new CommandError(`resource(s) were provided, but no name was specified`);
    }
    const resource = await ctx.discovery().resolveType(args[0]);
    const namespace = resource.namespaced ? ctx.namespace() : '';
    const list = await rest.request<{ items?: KubeObject[] }>({
      path: resourcePath(resource, namespace),
      query: { labelSelector: f.str('selector') || undefined, fieldSelector: f.str('field-selector') || undefined },
    });
    for (const o of list.body.items ?? []) targets.push({ resource, namespace, name: String(o.metadata?.name ?? '') });
    if (!targets.length) {
      ctx.io.stderr('No resources found\n');
      return;
    }
  }
  let grace = f.int('grace-period');
  if (f.bool('now')) grace = 1;
  if (f.bool('force') && grace < 0) grace = 0;
  let failed: unknown;
  for (const t of targets) {
    try {
      await rest.request({
        method: 'DELETE',
        path: resourcePath(t.resource, t.namespace, t.name),
        // DeleteOptions as query parameters (the API takes both): undici's HTTP/2 client cannot send a DELETE body.
        query: { dryRun: dryRun === 'server' ? 'All' : undefined, propagationPolicy: propagation, gracePeriodSeconds: grace >= 0 ? grace : undefined },
      });
      const kind = t.resource.kind.toLowerCase();
      const qualified = t.resource.group ? `${kind}.${t.resource.group}` : kind;
      const suffix = dryRun === 'server' ? ' (server dry run)' : '';
      ctx.io.stdout(f.str('output') === 'name' ? `${qualified}/${t.name}\n` : `${qualified} "${t.name}" deleted${suffix}\n`);
    } catch (err) {
      if (f.bool('ignore-not-found') && (err as { status?: { reason?: string } }).status?.reason === 'NotFound') continue;
      if (failed !== undefined) ctx.io.stderr(errorText(failed, 'delete'));
      failed = err;
    }
  }
  if (failed !== undefined) throw failed;
}
