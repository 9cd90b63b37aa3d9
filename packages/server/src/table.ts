import { newBadRequest, type ApiObject } from '@plat/api-model';
import type { MediaTypeChoice } from './negotiation.js';
import type { ResourceDefinition, TableColumn } from './resource.js';

/** Kubernetes' duration.HumanDuration, used for AGE cells. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

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
  throw newBadRequest(`includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: "Metadata", "None", "Object"`);
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
