import { z } from 'zod';

export const typeMetaSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
});
export type TypeMeta = z.infer<typeof typeMetaSchema>;

export const ownerReferenceSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof ownerReferenceSchema>;

export const managedFieldsEntrySchema = z.object({
  manager: z.string().optional(),
  operation: z.enum(['Apply', 'Update']).optional(),
  apiVersion: z.string().optional(),
  time: z.string().optional(),
  fieldsType: z.string().optional(),
  fieldsV1: z.record(z.string(), z.unknown()).optional(),
  subresource: z.string().optional(),
});
export type ManagedFieldsEntry = z.infer<typeof managedFieldsEntrySchema>;

export const objectMetaSchema = z.object({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  selfLink: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: z.string().nullable().optional(),
  deletionTimestamp: z.string().nullable().optional(),
  deletionGracePeriodSeconds: z.number().int().nullable().optional(),
  labels: z.record(z.string(), z.string()).nullable().optional(),
  annotations: z.record(z.string(), z.string()).nullable().optional(),
  ownerReferences: z.array(ownerReferenceSchema).nullable().optional(),
  finalizers: z.array(z.string()).nullable().optional(),
  managedFields: z.array(managedFieldsEntrySchema).nullable().optional(),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

export const listMetaSchema = z.object({
  selfLink: z.string().optional(),
  resourceVersion: z.string().optional(),
  continue: z.string().optional(),
  remainingItemCount: z.number().int().optional(),
});
export type ListMeta = z.infer<typeof listMetaSchema>;

/** Any API object: type meta, object meta and whatever else its kind carries. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}
