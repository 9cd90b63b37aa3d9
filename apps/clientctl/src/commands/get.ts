import { resourcePath, type ApiResource, type KubeObject } from '@plat/client';
import type { CommandContext } from '../context.js';
import { errorText } from '../errors.js';
import { mapObject, noResourcesError, targetsFromArgs } from './resource-target.js';
import { printTable, type Table } from './table.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.plat.io,application/json';

interface Request {
  resource: ApiResource;
  namespace: string;
  name?: string;
}

/** `clientctl get`: one object by name, or lists (chunked with limit/continue), printed by -o or as a table. */
export async function runGet(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const args = f.args;
  const output = f.str('output');
  // `--template` alone selects go-template output, as in kubectl.
  const tableMode = (output === '' && !f.str('template')) || output === 'wide';
  const printer = tableMode ? undefined : ctx.printer();
  const requests: Request[] = [];
  if (f.list('filename').length || f.str('kustomize')) {
    for (const info of await ctx.resources()) requests.push(await mapObject(ctx, info));
  } else if (!args.length) {
    throw noResourcesError();
  } else if (args[0].includes('/') || args.length > 1) {
    requests.push(...(await targetsFromArgs(ctx, args)));
  } else {
    for (const type of args[0].split(',')) {
      const resource = await ctx.discovery().resolveType(type);
      requests.push({ resource, namespace: resource.namespaced && !f.bool('all-namespaces') ? ctx.namespace() : '' });
    }
  }
  const rest = ctx.rest();
  const query = (list: boolean) => ({
    labelSelector: list ? f.str('selector') || undefined : undefined,
    fieldSelector: list ? f.str('field-selector') || undefined : undefined,
  });
  const items: KubeObject[] = [];
  const errors: unknown[] = [];
  let printedTable = false;
  for (const r of requests) {
    if (r.name !== undefined) {
      try {
        const res = await rest.request<KubeObject>({
          path: resourcePath(r.resource, r.namespace, r.name, f.str('subresource') || undefined),
          accept: tableMode ? tableAccept : undefined,
        });
        if (tableMode) {
          ctx.io.stdout(printTable(res.body as unknown as Table, { wide: output === 'wide', noHeaders: f.bool('no-headers') || printedTable, showLabels: f.bool('show-labels') }));
          printedTable = true;
        } else items.push(res.body);
      } catch (err) {
        if (f.bool('ignore-not-found') && (err as { status?: { reason?: string } }).status?.reason === 'NotFound') continue;
        // kubectl reports every failed name and prints what it found.
        errors.push(err);
      }
      continue;
    }
    let cont: string | undefined;
    const chunk = f.int('chunk-size');
    const rows: Table[] = [];
    const found: KubeObject[] = [];
    for (let page = 0; page < 10_000; page++) {
      const res = await rest.request<{ kind?: string; items?: KubeObject[]; rows?: unknown[]; metadata?: { continue?: string } }>({
        path: resourcePath(r.resource, r.namespace),
        query: { ...query(true), limit: chunk > 0 ? chunk : undefined, continue: cont, includeObject: tableMode && f.bool('show-labels') ? 'Object' : undefined },
        accept: tableMode ? tableAccept : undefined,
      });
      if (tableMode) rows.push(res.body as unknown as Table);
      else found.push(...(res.body.items ?? []).map((i) => ({ apiVersion: r.resource.group ? `${r.resource.group}/${r.resource.version}` : r.resource.version, kind: r.resource.kind, ...i })));
      cont = res.body.metadata?.continue;
      if (!cont) break;
    }
    if (tableMode) {
      const merged = mergeTables(rows);
      if (!merged.rows?.length) {
        if (!f.bool('ignore-not-found')) {
          ctx.io.stderr(r.resource.namespaced && !f.bool('all-namespaces') ? `No resources found in ${r.namespace} namespace.\n` : 'No resources found\n');
        }
        continue;
      }
      ctx.io.stdout(printTable(merged, { wide: output === 'wide', noHeaders: f.bool('no-headers') || printedTable, showLabels: f.bool('show-labels'), namespaceColumn: f.bool('all-namespaces') && r.resource.namespaced }));
      printedTable = true;
    } else {
      items.push(...found);
    }
  }
  const fail = () => {
    if (!errors.length) return;
    for (const e of errors.slice(0, -1)) ctx.io.stderr(errorText(e, 'get'));
    throw errors[errors.length - 1];
  };
  if (!printer) return fail();
  const single = requests.length === 1 && requests[0].name !== undefined;
  if (printer.format === 'name') {
    for (const i of items) ctx.io.stdout(printer.print(i));
  } else if (single) {
    if (items[0]) ctx.io.stdout(printer.print(items[0]));
  } else {
    ctx.io.stdout(printer.print({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } }));
  }
  fail();
}

function mergeTables(tables: Table[]): Table {
  if (!tables.length) return { columnDefinitions: [], rows: [] };
  return { ...tables[0], rows: tables.flatMap((t) => t.rows ?? []) };
}
