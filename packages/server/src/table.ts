import { type ApiObject, goQuote, humanDuration, newBadRequest } from '@plat/api-model';
import type { MediaTypeChoice } from './negotiation.js';
import type { ResourceDefinition, TableColumn } from './resource.js';

/** The AGE cell of an object: time since creationTimestamp, `<unknown>` without one. */
export function ageCell(obj: ApiObject, now = Date.now()): string {
  const ts = obj.metadata?.creationTimestamp;
  if (!ts) return '<unknown>';
  return humanDuration(now - Date.parse(ts));
}

export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
};

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw newBadRequest(`includeObject: Unsupported value: ${goQuote(value)}: supported values: "Metadata", "None", "Object"`);
}

export interface TableOptions {
  choice: MediaTypeChoice;
  includeObject: IncludeObject;
  /** Watches send column definitions with the first event only. */
  withColumns: boolean;
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

/** A meta.k8s.io/v1 Table of the objects, with the resource's columns. */
export function toTable(def: ResourceDefinition, objects: ApiObject[], opts: TableOptions): Record<string, unknown> {
  const tableApiVersion = `${opts.choice.group ?? 'meta.k8s.io'}/v1`;
  const columns = [nameColumn, ...def.strategy.tableColumns].map((c) => ({ priority: 0, ...c }));
  const rows = objects.map((obj) => {
    const row: Record<string, unknown> = { cells: [obj.metadata?.name ?? '', ...def.strategy.tableCells(obj)] };
    if (opts.includeObject === 'Object') row['object'] = obj;
    else if (opts.includeObject === 'Metadata') {
      row['object'] = { kind: 'PartialObjectMetadata', apiVersion: tableApiVersion, metadata: obj.metadata ?? {} };
    }
    return row;
  });
  const table: Record<string, unknown> = { kind: 'Table', apiVersion: tableApiVersion, metadata: opts.listMeta ?? {} };
  if (opts.withColumns) table['columnDefinitions'] = columns;
  else table['columnDefinitions'] = null;
  table['rows'] = rows;
  return table;
}
