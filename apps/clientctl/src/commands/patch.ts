import { readFileSync } from 'node:fs';
import { aggregate, readPatch, resourcePath, type ApiResource, type KubeObject } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import { deepEqual, mapObject, targetsFromArgs, noResourcesError } from './resource-target.js';

const patchTypes = ['json', 'merge', 'strategic'] as const;
type PatchType = (typeof patchTypes)[number];
const contentTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** One object to patch: read from an input (`object`), or named on the command line and fetched. */
interface PatchTarget {
  object?: KubeObject;
  source?: string;
  resource?: ApiResource;
  name?: string;
  namespace?: string;
}

/**
 * `clientctl patch`: kubectl's PatchOptions Validate + RunPatch. Objects are visited in order
 * and a failure does not stop the others (kubectl's ContinueOnError): the failures are reported
 * at the end, those of unreadable inputs last.
 */
export async function runPatch(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const args = f.args;
  const local = f.bool('local');
  const patchText = f.str('patch');
  const patchFile = f.str('patch-file');
  const dryRun = ctx.dryRun();
  if (patchText && patchFile) throw new CommandError('cannot specify --patch and --patch-file together');
  if (!patchText && !patchFile) throw new CommandError('must specify --patch or --patch-file containing the contents of the patch');
  if (local && args.length) throw new CommandError('cannot specify --local and server resources');
  if (local && dryRun === 'server') throw new CommandError('cannot specify --local and --dry-run=server - did you mean --dry-run=client?');
  const type = f.str('type').toLowerCase() as PatchType;
  if (!patchTypes.includes(type)) throw new CommandError(`--type must be one of [json merge strategic], not "${f.str('type')}"`);

  let raw = patchText;
  if (patchFile) {
    try {
      raw = readFileSync(patchFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CommandError(`unable to read patch file: open ${patchFile}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
  }
  const patch = readPatch(raw, patchText);
  if (f.str('kustomize') && (f.list('filename').length || f.bool('recursive'))) throw new CommandError('only one of -f or -k can be specified');

  const readErrors: Error[] = [];
  const fromInputs = f.list('filename').length || f.str('kustomize');
  if (!fromInputs && !args.length) throw noResourcesError();
  const targets: PatchTarget[] = fromInputs ? await ctx.resources(readErrors) : await targetsFromArgs(ctx, args);
  const patchLocally = local || dryRun === 'client' ? (await import('./local-patch.js')).patchLocally : undefined;
  const suffix = local ? '' : dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
  const errors: unknown[] = [];
  let count = 0;

  for (const t of targets) {
    try {
      // Objects read from inputs are mapped to their resource unless --local; a kind the server
      // does not know is an error of reading, reported with those.
      if (t.object && !local) {
        try {
          Object.assign(t, await mapObject(ctx, { source: t.source ?? '', object: t.object }));
        } catch (err) {
          readErrors.push(err as Error);
          continue;
        }
      }
      const original = t.object ?? (await ctx.rest().request<KubeObject>({ path: targetPath(ctx, t) })).body;
      count++;
      const patched = patchLocally ? patchLocally(original, patch, type) : await sendPatch(ctx, t, patch.body, type, dryRun);
      const op = deepEqual(original, patched) ? 'patched (no change)' : 'patched';
      // kubectl makes a printer per object: YAML output has no `---` between them.
      ctx.io.stdout(ctx.printer().print(patched, `${op}${suffix}`));
    } catch (err) {
      errors.push(err);
    }
  }
  if (readErrors.length) errors.push(aggregate(readErrors));
  if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors);
  if (count === 0) throw new CommandError('no objects passed to patch');
}

function targetPath(ctx: CommandContext, t: PatchTarget): string {
  return resourcePath(t.resource!, t.namespace ?? '', t.name ?? '', ctx.flags.str('subresource') || undefined);
}

async function sendPatch(ctx: CommandContext, t: PatchTarget, body: string, type: PatchType, dryRun: string): Promise<KubeObject> {
  const f = ctx.flags;
  try {
    const res = await ctx.rest().request<KubeObject>({
      method: 'PATCH',
      path: targetPath(ctx, t),
      body,
      contentType: contentTypes[type],
      query: { fieldManager: f.str('field-manager'), dryRun: dryRun === 'server' ? 'All' : undefined },
    });
    return res.body;
  } catch (err) {
    const status = (err as { status?: { reason?: string } }).status;
    if (status?.reason === 'UnsupportedMediaType') {
      const r = t.resource!;
      throw new CommandError(`${contentTypes[type]} is not supported by ${r.group}/${r.version}, Kind=${r.kind}: ${(err as Error).message}`);
    }
    throw err;
  }
}
