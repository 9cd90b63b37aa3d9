import { z } from 'zod';
import { fieldError, type FieldError } from './field-error.js';

/** DeleteOptions (`meta/v1`): the optional body of delete and deletecollection. */

export const DeletionPropagation = {
  Orphan: 'Orphan',
  Background: 'Background',
  Foreground: 'Foreground',
} as const;
export type DeletionPropagation = (typeof DeletionPropagation)[keyof typeof DeletionPropagation];

/** The only accepted dryRun value. */
export const dryRunAll = 'All';

export const preconditionsSchema = z.object({
  uid: z.string().nullable().optional(),
  resourceVersion: z.string().nullable().optional(),
});
export type Preconditions = z.infer<typeof preconditionsSchema>;

export const deleteOptionsSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  gracePeriodSeconds: z.number().int().nullable().optional(),
  preconditions: preconditionsSchema.nullable().optional(),
  orphanDependents: z.boolean().nullable().optional(),
  // Any string: validateDeleteOptions reports an unknown policy with Kubernetes' message.
  propagationPolicy: z.string().nullable().optional(),
  dryRun: z.array(z.string()).nullable().optional(),
  ignoreStoreReadErrorWithClusterBreakingPotential: z.boolean().nullable().optional(),
});
export type DeleteOptions = z.infer<typeof deleteOptionsSchema>;

/** Kubernetes' `ValidateDryRun`: only `All`. */
export function validateDryRun(dryRun: readonly string[] | null | undefined, path = 'dryRun'): FieldError[] {
  const values = dryRun ?? [];
  return values.every((v) => v === dryRunAll) ? [] : [fieldError.notSupported(path, [...values], [dryRunAll])];
}

/** Kubernetes' `ValidateDeleteOptions`: known propagation policy, not combined with orphanDependents, valid dryRun. */
export function validateDeleteOptions(options: DeleteOptions): FieldError[] {
  const errs: FieldError[] = [];
  const policy = options.propagationPolicy;
  const hasPolicy = policy !== undefined && policy !== null;
  if (options.orphanDependents !== undefined && options.orphanDependents !== null && hasPolicy) {
    errs.push(fieldError.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (hasPolicy && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    errs.push(fieldError.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  errs.push(...validateDryRun(options.dryRun));
  return errs;
}
