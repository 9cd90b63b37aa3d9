import { humanDuration } from '@plat/api-model';

/** A meta.k8s.io/v1 Table as the server sends it for `Accept: ...;as=Table`. */
export interface Table {
  kind?: string;
  columnDefinitions?: { name: string; type?: string; priority?: number }[];
  rows?: { cells: unknown[]; object?: { metadata?: { labels?: Record<string, string>; namespace?: string; name?: string; creationTimestamp?: string } } }[];
  metadata?: { name?: string; creationTimestamp?: string; namespace?: string; labels?: Record<string, string> };
}

/** Columns padded like kubectl's tabwriter (3 spaces between columns). */
export function formatColumns(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 3))).join('')).join('\n') + (rows.length ? '\n' : '');
}

/** The AGE of an object, as kubectl's printers show it (Kubernetes' duration.HumanDuration). */
export function age(timestamp: string | undefined, now = Date.now()): string {
  return timestamp ? humanDuration(now - Date.parse(timestamp)) : '<unknown>';
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '<none>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * Prints a server Table (or, for a server without Table support, a plain object or list as
 * NAME/AGE) the way kubectl's default printer does.
 */
export function printTable(
  t: Table & { items?: Table['metadata'][] & unknown[] },
  opts: { wide?: boolean; noHeaders?: boolean; showLabels?: boolean; namespaceColumn?: boolean },
): string {
  let headers: string[];
  let body: string[][];
  if (t.kind === 'Table' && t.columnDefinitions) {
    const cols = t.columnDefinitions.map((c, i) => ({ ...c, i })).filter((c) => opts.wide || !c.priority);
    headers = cols.map((c) => c.name.toUpperCase());
    body = (t.rows ?? []).map((r) => cols.map((c) => cellText(r.cells[c.i])));
    if (opts.showLabels) {
      headers.push('LABELS');
      (t.rows ?? []).forEach((r, k) => body[k].push(labelText(r.object?.metadata?.labels)));
    }
    if (opts.namespaceColumn) {
      headers.unshift('NAMESPACE');
      (t.rows ?? []).forEach((r, k) => body[k].unshift(r.object?.metadata?.namespace ?? ''));
    }
  } else {
    const objs = (Array.isArray((t as { items?: unknown[] }).items) ? (t as { items: { metadata?: Table['metadata'] }[] }).items : [t]) as { metadata?: Table['metadata'] }[];
    headers = ['NAME', 'AGE'];
    body = objs.map((o) => [o.metadata?.name ?? '', age(o.metadata?.creationTimestamp)]);
  }
  return formatColumns(opts.noHeaders ? body : [headers, ...body]);
}

function labelText(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}
