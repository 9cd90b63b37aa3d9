import { resourcePath, type KubeObject } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError, addSourceToErr, errorText } from '../errors.js';
import { dryRunSuffix, fieldValidation } from './create.js';
import { deepEqual, mapObject } from './resource-target.js';

/** The annotation client-side apply keeps the last applied configuration in (brand word for `kubernetes`). */
export const lastAppliedAnnotation = 'kubectl.plat.io/last-applied-configuration';

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A three-way JSON merge patch (jsonmergepatch.CreateThreeWayJSONMergePatch): set what `modified`
 * changes relative to `current`, and null out what `original` had and `modified` dropped.
 */
export function threeWayMergePatch(original: unknown, modified: unknown, current: unknown): Json {
  const patch: Json = {};
  const o = isObj(original) ? original : {};
  const m = isObj(modified) ? modified : {};
  const c = isObj(current) ? current : {};
  for (const [k, mv] of Object.entries(m)) {
    const cv = c[k];
    if (isObj(mv) && isObj(cv)) {
      const sub = threeWayMergePatch(o[k], mv, cv);
      if (Object.keys(sub).length) patch[k] = sub;
    } else if (!deepEqual(mv, cv)) patch[k] = mv;
  }
  for (const k of Object.keys(o)) if (!(k in m) && k in c) patch[k] = null;
  return patch;
}

function withAnnotation(obj: KubeObject): KubeObject {
  const copy = JSON.parse(JSON.stringify(obj)) as KubeObject;
  const meta = (copy.metadata ??= {});
  const annotations = { ...((meta.annotations as Record<string, string> | undefined) ?? {}) };
  delete annotations[lastAppliedAnnotation];
  const forAnnotation = JSON.parse(JSON.stringify(copy)) as KubeObject;
  if (forAnnotation.metadata) {
    if (Object.keys(annotations).length) forAnnotation.metadata.annotations = annotations;
    else delete forAnnotation.metadata.annotations;
  }
  meta.annotations = { ...annotations, [lastAppliedAnnotation]: `${JSON.stringify(sortKeys(forAnnotation))}\n` };
  return copy;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

/** `clientctl apply -f` (client-side): create with the annotation, else patch the three-way difference. */
export async function runApply(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  if (!f.list('filename').length && !f.str('kustomize')) throw new CommandError('must specify one of -f and -k', { usageOf: 'apply' });
  const dryRun = ctx.dryRun();
  if (f.bool('force-conflicts') && !f.bool('server-side')) throw new CommandError('--force-conflicts only works with --server-side');
  if (f.bool('server-side')) {
    if (dryRun === 'client') throw new CommandError("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)");
    await runServerSideApply(ctx, dryRun);
    return;
  }
  const validation = fieldValidation(f.str('validate'));
  const printer = ctx.printer();
  const rest = ctx.rest();
  const infos = await ctx.resources();
  if (!infos.length) throw new CommandError('no objects passed to apply');
  let failed: unknown;
  for (const info of infos) {
    try {
      const target = await mapObject(ctx, info);
      const modified = withAnnotation(info.object);
      const query = { fieldManager: f.str('field-manager'), fieldValidation: validation, dryRun: dryRun === 'server' ? 'All' : undefined };
      let current: KubeObject | undefined;
      try {
        current = (await rest.request<KubeObject>({ path: resourcePath(target.resource, target.namespace, target.name) })).body;
      } catch (err) {
        if ((err as { status?: { reason?: string } }).status?.reason !== 'NotFound') throw err;
      }
      if (!current) {
        if (dryRun === 'client') {
          ctx.io.stdout(printer.print(modified, `created${dryRunSuffix(dryRun)}`));
          continue;
        }
        const res = await rest
          .request<KubeObject>({ method: 'POST', path: resourcePath(target.resource, target.namespace), body: modified, query })
          .catch((err: unknown) => {
            throw addSourceToErr('creating', info.source, err);
          });
        ctx.io.stdout(printer.print(res.body, `created${dryRunSuffix(dryRun)}`));
        continue;
      }
      const lastText = (current.metadata?.annotations as Record<string, string> | undefined)?.[lastAppliedAnnotation];
      let original: unknown = {};
      if (lastText) {
        try {
          original = JSON.parse(lastText);
        } catch {
          original = {};
        }
      } else {
        ctx.io.stderr(
          `Warning: resource ${target.resource.group ? `${target.resource.name}.${target.resource.group}` : target.resource.name}/${target.name} is missing the ${lastAppliedAnnotation} annotation which is required by clientctl apply. clientctl apply should only be used on resources created declaratively by either clientctl create --save-config or clientctl apply. The missing annotation will be patched automatically.\n`,
        );
      }
      const patch = threeWayMergePatch(original, modified, current);
      if (patch.metadata && isObj(patch.metadata)) {
        delete patch.metadata.resourceVersion;
        if (!Object.keys(patch.metadata).length) delete patch.metadata;
      }
      if (!Object.keys(patch).length) {
        ctx.io.stdout(printer.print(current, `unchanged${dryRunSuffix(dryRun)}`));
        continue;
      }
      if (dryRun === 'client') {
        ctx.io.stdout(printer.print(current, `configured${dryRunSuffix(dryRun)}`));
        continue;
      }
      const res = await rest.request<KubeObject>({
        method: 'PATCH',
        path: resourcePath(target.resource, target.namespace, target.name),
        body: JSON.stringify(patch),
        contentType: 'application/merge-patch+json',
        query,
      });
      ctx.io.stdout(printer.print(res.body, `configured${dryRunSuffix(dryRun)}`));
    } catch (err) {
      if (failed !== undefined) ctx.io.stderr(errorText(failed, 'apply'));
      failed = err;
    }
  }
  if (failed !== undefined) throw failed;
}

/** The server-side apply manager when --field-manager is not given (kubectl's is `kubectl`). */
export const serverSideApplyManager = 'clientctl';

/** What kubectl adds to an apply conflict: how to resolve it. */
const conflictAdvice = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`;

/**
 * `clientctl apply --server-side`: each object is sent whole as an apply patch
 * (`application/apply-patch+yaml`); the server merges it, tracks field ownership and answers a
 * conflict, which is printed with kubectl's advice, unless --force-conflicts.
 */
async function runServerSideApply(ctx: CommandContext, dryRun: 'none' | 'server'): Promise<void> {
  const f = ctx.flags;
  const printer = ctx.printer();
  const rest = ctx.rest();
  const manager = f.changed('field-manager') ? f.str('field-manager') : serverSideApplyManager;
  const query = {
    fieldManager: manager,
    fieldValidation: fieldValidation(f.str('validate')),
    force: f.bool('force-conflicts') ? 'true' : 'false',
    dryRun: dryRun === 'server' ? 'All' : undefined,
  };
  const infos = await ctx.resources();
  if (!infos.length) throw new CommandError('no objects passed to apply');
  let failed: unknown;
  for (const info of infos) {
    try {
      const target = await mapObject(ctx, info);
      const res = await rest.request<KubeObject>({
        method: 'PATCH',
        path: resourcePath(target.resource, target.namespace, target.name),
        body: JSON.stringify(info.object),
        contentType: 'application/apply-patch+yaml',
        query,
      });
      ctx.io.stdout(printer.print(res.body, `serverside-applied${dryRunSuffix(dryRun)}`));
    } catch (err) {
      const status = (err as { name?: string; status?: { reason?: string; message?: string } }).status;
      const e = (err as { name?: string }).name === 'StatusError' && status?.reason === 'Conflict'
        ? new CommandError(`${status.message ?? ''}\n${conflictAdvice}`)
        : err;
      if (failed !== undefined) ctx.io.stderr(errorText(failed, 'apply'));
      failed = e;
    }
  }
  if (failed !== undefined) throw failed;
}
