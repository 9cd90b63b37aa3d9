import { readFileSync } from 'node:fs';
import { decodeYamlOrJson, resourcePath, type ApiResource, type KubeObject } from '@plat/client';
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

/** `clientctl patch`: kubectl's PatchOptions Validate + RunPatch. */
export async function runPatch(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const args = f.args;
  const local = f.bool('local');
  const patchText = f.str('patch');
  const patchFile = f.str('patch-file');
  const dryRun = ctx.dryRun();
  if (local && args.length) throw new CommandError('cannot specify --local and server resources');
  if (patchText && patchFile) throw new CommandError('cannot specify --patch and --patch-file together');
  if (!patchText && !patchFile) throw new CommandError('must specify --patch or --patch-file containing the contents of the patch');
  if (local && dryRun === 'server') throw new CommandError('cannot specify --local and --dry-run=server - did you mean --dry-run=client?');
  const type = f.str('type').toLowerCase() as PatchType;
  if (!patchTypes.includes(type)) throw new CommandError(`--type must be one of [json merge strategic], not "${f.str('type')}"`);
  if (f.str('kustomize') && (f.list('filename').length || f.bool('recursive'))) throw new CommandError('only one of -f or -k can be specified');

  let raw = patchText;
  if (patchFile) {
    try {
      raw = readFileSync(patchFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CommandError(`unable to read patch file: open ${patchFile}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
  }
  const patch = decodeYamlOrJson(raw);
  const printer = ctx.printer();
  const suffix = local ? '' : dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
  let count = 0;

  if (local || dryRun === 'client') {
    const infos = f.list('filename').length || f.str('kustomize') ? await ctx.resources() : [];
    if (!infos.length && !args.length) throw noResourcesError();
    const { applyPatch } = await import('./local-patch.js');
    const sources = infos.length ? infos.map((i) => i.object) : await fetchTargets(ctx, args, f.str('subresource'));
    for (const obj of sources) {
      count++;
      let patched: KubeObject;
      try {
        patched = applyPatch(obj, patch, type, { apiVersion: String(obj.apiVersion ?? ''), kind: String(obj.kind ?? '') }) as KubeObject;
      } catch (err) {
        // Patched here, not by a server: kubectl prints the library's text after `error: `.
        throw new CommandError((err as Error).message);
      }
      const op = deepEqual(obj, patched) ? 'patched (no change)' : 'patched';
      ctx.io.stdout(printer.print(patched, `${op}${suffix}`));
    }
  } else {
    const rest = ctx.rest();
    const subresource = f.str('subresource');
    const namespaceFlag = f.str('namespace');
    const targets: { resource: ApiResource; name: string; namespace: string; original?: KubeObject }[] = [];
    if (f.list('filename').length || f.str('kustomize')) {
      for (const info of await ctx.resources()) targets.push({ ...(await mapObject(ctx, info)), original: info.object });
    } else targets.push(...(await targetsFromArgs(ctx, args)));
    if (!targets.length) throw noResourcesError();
    for (const t of targets) {
      count++;
      if (!t.resource.namespaced && namespaceFlag && count === 1) {
        ctx.io.stderr(`Warning: --namespace is ignored for the cluster-scoped resource ${t.resource.group ? `${t.resource.name}.${t.resource.group}` : t.resource.name}\n`);
      }
      const p = resourcePath(t.resource, t.namespace, t.name, subresource || undefined);
      const before = t.original ?? ((await rest.request<KubeObject>({ path: p })).body as KubeObject);
      let res;
      try {
        res = await rest.request<KubeObject>({
          method: 'PATCH',
          path: p,
          body: JSON.stringify(patch),
          contentType: contentTypes[type],
          query: { fieldManager: f.str('field-manager'), dryRun: dryRun === 'server' ? 'All' : undefined },
        });
      } catch (err) {
        const status = (err as { status?: { reason?: string } }).status;
        if (status?.reason === 'UnsupportedMediaType' && type === 'strategic') {
          const gvk = `${t.resource.group}/${t.resource.version}, Kind=${t.resource.kind}`;
          throw new CommandError(`${contentTypes[type]} is not supported by ${gvk}: ${(err as Error).message}`);
        }
        throw err;
      }
      const patched = res.body;
      const op = deepEqual(before, patched) ? 'patched (no change)' : 'patched';
      ctx.io.stdout(printer.print(patched, `${op}${suffix}`));
    }
  }
  if (count === 0) throw new CommandError('no objects passed to patch');
}

async function fetchTargets(ctx: CommandContext, args: string[], subresource: string): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const t of await targetsFromArgs(ctx, args)) {
    out.push((await ctx.rest().request<KubeObject>({ path: resourcePath(t.resource, t.namespace, t.name, subresource || undefined) })).body);
  }
  return out;
}
