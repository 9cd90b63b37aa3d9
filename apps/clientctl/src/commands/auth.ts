import { goJson, goYaml } from '@plat/client';
import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import { formatColumns } from './table.js';

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** `clientctl auth whoami`: a SelfSubjectReview (authentication.plat.io/v1). */
export async function runWhoami(ctx: CommandContext): Promise<void> {
  let res;
  try {
    res = await ctx.rest().request<{ status?: { userInfo?: UserInfo } }>({
      method: 'POST',
      path: '/apis/authentication.plat.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.plat.io/v1', kind: 'SelfSubjectReview' },
    });
  } catch (err) {
    if ((err as { status?: { code?: number } }).status?.code === 404) {
      throw new CommandError('the selfsubjectreviews API is not enabled in the cluster');
    }
    throw err;
  }
  const output = ctx.flags.str('output');
  if (output) {
    ctx.io.stdout(output === 'json' || output === 'yaml' ? (output === 'json' ? `${goJson(res.body)}\n` : goYaml(res.body)) : ctx.printer().print(res.body as Record<string, unknown>));
    return;
  }
  const u = res.body.status?.userInfo ?? {};
  const rows = [['ATTRIBUTE', 'VALUE']];
  if (u.username) rows.push(['Username', u.username]);
  if (u.uid) rows.push(['UID', u.uid]);
  if (u.groups?.length) rows.push(['Groups', `[${u.groups.join(' ')}]`]);
  for (const k of Object.keys(u.extra ?? {}).sort()) rows.push([`Extra: ${k}`, `[${(u.extra![k] ?? []).join(' ')}]`]);
  ctx.io.stdout(formatColumns(rows));
}

/** `clientctl auth can-i VERB TYPE[/NAME] | VERB /url`: a SelfSubjectAccessReview (authorization.plat.io/v1). */
export async function runCanI(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const args = f.args;
  if (args.length < 2) {
    throw new CommandError('you must specify two arguments: verb resource or verb resource/resourceName.', { usageOf: 'auth can-i' });
  }
  const [verb, what, extra] = args;
  let spec: Record<string, unknown>;
  if (what.startsWith('/')) {
    spec = { nonResourceAttributes: { verb, path: what } };
  } else {
    const slash = what.indexOf('/');
    const type = slash >= 0 ? what.slice(0, slash) : what;
    const name = slash >= 0 ? what.slice(slash + 1) : (extra ?? '');
    let group = '';
    let resource = type;
    let namespaced = true;
    try {
      const r = await ctx.discovery().resolveType(type);
      group = r.group;
      resource = r.name;
      namespaced = r.namespaced;
    } catch {
      ctx.io.stderr(`Warning: the server doesn't have a resource type '${type}'\n`);
      const dot = type.indexOf('.');
      if (dot > 0) {
        resource = type.slice(0, dot);
        group = type.slice(dot + 1);
      }
    }
    spec = {
      resourceAttributes: {
        namespace: namespaced && !f.bool('all-namespaces') ? ctx.namespace() : '',
        verb,
        group,
        resource,
        subresource: f.str('subresource') || undefined,
        name: name || undefined,
      },
    };
  }
  const res = await ctx.rest().request<{ status?: { allowed?: boolean; reason?: string; evaluationError?: string } }>({
    method: 'POST',
    path: '/apis/authorization.plat.io/v1/selfsubjectaccessreviews',
    body: { apiVersion: 'authorization.plat.io/v1', kind: 'SelfSubjectAccessReview', spec },
  });
  const allowed = !!res.body.status?.allowed;
  if (!f.bool('quiet')) {
    ctx.io.stdout(allowed ? 'yes\n' : `no${res.body.status?.reason ? ` - ${res.body.status.reason}` : ''}\n`);
  }
  if (!allowed) throw new CommandError('', { exitCode: 1 });
}
