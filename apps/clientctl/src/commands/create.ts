import { resourcePath, type KubeObject } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError, addSourceToErr } from '../errors.js';
import { mapObject } from './resource-target.js';

/** kubectl's --validate values mapped to the server's fieldValidation directive. */
export function fieldValidation(value: string): string {
  switch (value) {
    case 'strict':
    case 'true':
      return 'Strict';
    case 'warn':
      return 'Warn';
    case 'ignore':
    case 'false':
      return 'Ignore';
    default:
      throw new CommandError(`invalid - validate option "${value}"; must be one of: strict (or true), warn, ignore (or false)`);
  }
}

export function dryRunSuffix(dryRun: string): string {
  return dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
}

/** `clientctl create -f`: POSTs every object read from the inputs. */
export async function runCreate(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  if (!f.list('filename').length && !f.str('kustomize')) {
    throw new CommandError('must specify one of -f and -k', { usageOf: 'create' });
  }
  const dryRun = ctx.dryRun();
  const validation = fieldValidation(f.str('validate'));
  const printer = ctx.printer();
  const infos = await ctx.resources();
  if (!infos.length) throw new CommandError('no objects passed to create');
  let failed: unknown;
  for (const info of infos) {
    try {
      if (dryRun === 'client') {
        ctx.io.stdout(printer.print(info.object, `created${dryRunSuffix(dryRun)}`));
        continue;
      }
      const target = await mapObject(ctx, info);
      const res = await ctx
        .rest()
        .request<KubeObject>({
          method: 'POST',
          path: resourcePath(target.resource, target.namespace),
          body: info.object,
          query: { fieldManager: f.str('field-manager'), fieldValidation: validation, dryRun: dryRun === 'server' ? 'All' : undefined },
        })
        .catch((err: unknown) => {
          throw addSourceToErr('creating', info.source, err);
        });
      ctx.io.stdout(printer.print(res.body, `created${dryRunSuffix(dryRun)}`));
    } catch (err) {
      // kubectl reports every failure and keeps going, then exits non-zero.
      if (failed !== undefined) ctx.io.stderr((await import('../errors.js')).errorText(failed, 'create'));
      failed = err;
    }
  }
  if (failed !== undefined) throw failed;
}
