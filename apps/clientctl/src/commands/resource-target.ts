import type { ApiResource, ResourceInfo } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';

export interface Target {
  resource: ApiResource;
  name: string;
  namespace: string;
}

export function noResourcesError(): CommandError {
  return new CommandError(
    "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
  );
}

export function groupResource(r: ApiResource): string {
  return r.group ? `${r.name}.${r.group}` : r.name;
}

/** `TYPE NAME...` or `TYPE/NAME...` as kubectl's builder reads them. */
export async function targetsFromArgs(ctx: CommandContext, args: string[], requireName = true): Promise<Target[]> {
  if (!args.length) return [];
  const ns = ctx.namespace();
  const out: Target[] = [];
  if (args[0].includes('/')) {
    for (const a of args) {
      const slash = a.indexOf('/');
      if (slash < 0) {
        throw new CommandError(
          `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'clientctl get resource/<resource_name>' instead of 'clientctl get resource resource/<resource_name>'`,
        );
      }
      const resource = await ctx.discovery().resolveType(a.slice(0, slash));
      out.push({ resource, name: a.slice(slash + 1), namespace: resource.namespaced ? ns : '' });
    }
    return out;
  }
  const names = args.slice(1);
  if (!names.length && requireName) throw new CommandError('resource(s) were provided, but no name was specified');
  for (const type of args[0].split(',')) {
    const resource = await ctx.discovery().resolveType(type);
    for (const name of names) out.push({ resource, name, namespace: resource.namespaced ? ns : '' });
  }
  return out;
}

/** Maps an object read from a file to its resource and namespace (kubectl's RESTMapper step). */
export async function mapObject(ctx: CommandContext, info: ResourceInfo): Promise<Target> {
  const obj = info.object;
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const name = String(obj.metadata?.name ?? '');
  const resource = await ctx.discovery().resourceForKind(apiVersion, kind);
  if (!resource) {
    throw new CommandError(
      `resource mapping not found for name: "${name}" namespace: "${String(obj.metadata?.namespace ?? '')}" from "${info.source}": no matches for kind "${kind}" in version "${apiVersion}"\nensure CRDs are installed first`,
    );
  }
  let namespace = '';
  if (resource.namespaced) {
    const own = obj.metadata?.namespace;
    const flag = ctx.flags.str('namespace');
    if (own && flag && own !== flag) {
      throw new CommandError(
        `the namespace from the provided object "${own}" does not match the namespace "${flag}". You must pass '--namespace=${own}' to perform this operation.`,
      );
    }
    namespace = own || ctx.namespace();
  }
  return { resource, name, namespace };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}
