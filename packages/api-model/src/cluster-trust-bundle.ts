import { z } from 'zod';
import { listMetaSchema, objectMetaSchema } from './object-meta.js';

/** ClusterTrustBundle (`certificates.plat.io/v1alpha1`, cluster-scoped): X.509 trust anchors, optionally of one signer. */

export const clusterTrustBundleSpecSchema = z.object({
  /** Name of the associated signer, `<domain>/<path>`; empty for a bundle of no signer. */
  signerName: z.string().optional(),
  /** PEM bundle of X.509 CA certificates. */
  trustBundle: z.string(),
});
export type ClusterTrustBundleSpec = z.infer<typeof clusterTrustBundleSpecSchema>;

export const clusterTrustBundleSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema.optional(),
  spec: clusterTrustBundleSpecSchema,
});
export type ClusterTrustBundle = z.infer<typeof clusterTrustBundleSchema>;

export const clusterTrustBundleListSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: listMetaSchema.optional(),
  items: z.array(clusterTrustBundleSchema),
});
export type ClusterTrustBundleList = z.infer<typeof clusterTrustBundleListSchema>;

/** The fields a field selector may name on ClusterTrustBundle (Kubernetes' field label conversion). */
export const clusterTrustBundleSelectableFields: readonly string[] = ['metadata.name', 'spec.signerName'];

/** The field values a field selector matches against (`spec.signerName=<signer>`). */
export function clusterTrustBundleFields(obj: ClusterTrustBundle): Record<string, string> {
  return { 'metadata.name': obj.metadata?.name ?? '', 'spec.signerName': obj.spec?.signerName ?? '' };
}
