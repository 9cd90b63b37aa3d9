import { z } from 'zod';
import { fieldError, type FieldError } from './field-error.js';
import { listMetaSchema, objectMetaSchema } from './object-meta.js';

/**
 * Server-side table output (`meta.k8s.io/v1` Table), what kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, and PartialObjectMetadata for
 * `includeObject=Metadata`.
 */

export const metaGroupVersion = 'meta.k8s.io/v1';

export const tableColumnDefinitionSchema = z.object({
  name: z.string(),
  /** An OpenAPI type: string, integer, number, boolean, date. */
  type: z.string(),
  /** An OpenAPI format hint, e.g. `name` for the object name column. */
  format: z.string(),
  description: z.string(),
  /** 0 for the default columns; higher ones show with `-o wide`. */
  priority: z.number().int(),
});
export type TableColumnDefinition = z.infer<typeof tableColumnDefinitionSchema>;

export const tableRowConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type TableRowCondition = z.infer<typeof tableRowConditionSchema>;

export const tableRowSchema = z.object({
  /** One cell per column definition: string, number, boolean, or an object. */
  cells: z.array(z.unknown()),
  conditions: z.array(tableRowConditionSchema).optional(),
  /** The full object or its PartialObjectMetadata, per `includeObject`. */
  object: z.record(z.string(), z.unknown()).optional(),
});
export type TableRow = z.infer<typeof tableRowSchema>;

export const tableSchema = z.object({
  apiVersion: z.literal(metaGroupVersion),
  kind: z.literal('Table'),
  metadata: listMetaSchema,
  columnDefinitions: z.array(tableColumnDefinitionSchema),
  rows: z.array(tableRowSchema),
});
export type Table = z.infer<typeof tableSchema>;

export const partialObjectMetadataSchema = z.object({
  apiVersion: z.literal(metaGroupVersion),
  kind: z.literal('PartialObjectMetadata'),
  metadata: objectMetaSchema,
});
export type PartialObjectMetadata = z.infer<typeof partialObjectMetadataSchema>;

export const partialObjectMetadataListSchema = z.object({
  apiVersion: z.literal(metaGroupVersion),
  kind: z.literal('PartialObjectMetadataList'),
  metadata: listMetaSchema,
  items: z.array(partialObjectMetadataSchema),
});
export type PartialObjectMetadataList = z.infer<typeof partialObjectMetadataListSchema>;

/** What a table row embeds (`includeObject`); the default is Metadata. */
export const IncludeObjectPolicy = { None: 'None', Metadata: 'Metadata', Object: 'Object' } as const;
export type IncludeObjectPolicy = (typeof IncludeObjectPolicy)[keyof typeof IncludeObjectPolicy];

/** Kubernetes' `ValidateTableOptions`. */
export function validateTableOptions(options: { includeObject?: string }): FieldError[] {
  const v = options.includeObject ?? '';
  if (v === '' || v === 'None' || v === 'Metadata' || v === 'Object') return [];
  return [fieldError.invalid('includeObject', v, "must be 'Metadata', 'Object', 'None', or empty")];
}

/** A Table of the given columns and rows. */
export function newTable(columnDefinitions: TableColumnDefinition[], rows: TableRow[], metadata: Table['metadata'] = {}): Table {
  return { apiVersion: metaGroupVersion, kind: 'Table', metadata, columnDefinitions, rows };
}
