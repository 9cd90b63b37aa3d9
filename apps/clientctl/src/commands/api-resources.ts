import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import { formatColumns } from './table.js';

/** `clientctl api-resources`: the preferred version of every resource, from discovery. */
export async function runApiResources(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const output = f.str('output');
  if (output && output !== 'wide' && output !== 'name') throw new CommandError(`--output ${output} is not available`);
  const sortBy = f.str('sort-by');
  if (sortBy && sortBy !== 'name' && sortBy !== 'kind') throw new CommandError(`--sort-by accepts only name or kind`);
  const discovery = ctx.discovery();
  if (!f.bool('cached')) discovery.invalidate();
  let resources = await discovery.preferredResources();
  if (f.changed('api-group')) resources = resources.filter((r) => r.group === f.str('api-group'));
  if (f.changed('namespaced')) resources = resources.filter((r) => r.namespaced === f.bool('namespaced'));
  const verbs = f.list('verbs');
  if (verbs.length) resources = resources.filter((r) => verbs.every((v) => r.verbs.includes(v)));
  // kubectl's order: by group (or the --sort-by field), then by name; byte-wise like Go strings.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  resources = [...resources].sort(
    (a, b) => cmp(sortBy === 'kind' ? a.kind : sortBy === 'name' ? a.name : a.group, sortBy === 'kind' ? b.kind : sortBy === 'name' ? b.name : b.group) || cmp(a.name, b.name),
  );
  if (output === 'name') {
    ctx.io.stdout(resources.map((r) => (r.group ? `${r.name}.${r.group}` : r.name)).join('\n') + (resources.length ? '\n' : ''));
    return;
  }
  const header = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'];
  if (output === 'wide') header.push('VERBS', 'CATEGORIES');
  const rows = resources.map((r) => {
    const row = [r.name, r.shortNames.join(','), r.group ? `${r.group}/${r.version}` : r.version, String(r.namespaced), r.kind];
    if (output === 'wide') row.push([...new Set(r.verbs)].sort().join(','), r.categories.join(','));
    return row;
  });
  ctx.io.stdout(formatColumns(f.bool('no-headers') ? rows : [header, ...rows]));
}
