import { z } from 'zod';
import { fieldError, type FieldError } from './field-error.js';
import { FieldPath } from './field-path.js';
import { isQualifiedName } from './label-validation.js';
import { nameIsDNSLabel } from './name-validation.js';
import { validateKubeFinalizerName, validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';
import { listMetaSchema, objectMetaSchema } from './object-meta.js';

/**
 * Namespace (core `v1`, cluster-scoped), the part of Kubernetes' type plat serves: the scope of
 * Roles and RoleBindings, with its lifecycle (Active, then Terminating until its content is gone).
 */

export const namespaceKind = 'Namespace';
export const namespaceListKind = 'NamespaceList';
export const namespacesResource = 'namespaces';

/** The finalizer every namespace gets on create, removed once its content is deleted (Kubernetes' FinalizerKubernetes). */
export const finalizerKubernetes = 'kubernetes';

/**
 * The label every namespace carries with its own name (Kubernetes' `kubernetes.io/metadata.name`,
 * with the brand rule), so that selectors can pick namespaces by name.
 */
export const labelMetadataName = 'plat.io/metadata.name';

/**
 * The namespaces every server has and that may not be deleted (Kubernetes' `default`,
 * `kube-system` and `kube-public`, with the brand rule; Kubernetes' `kube-node-lease` holds node
 * heartbeats, which plat does not have).
 */
export const systemNamespaces: readonly string[] = ['default', 'plat-system', 'plat-public'];

export const NamespacePhase = { Active: 'Active', Terminating: 'Terminating' } as const;
export type NamespacePhase = (typeof NamespacePhase)[keyof typeof NamespacePhase];

export const namespaceConditionSchema = z.object({
  type: z.string().optional(),
  status: z.string().optional(),
  lastTransitionTime: z.string().nullable().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const namespaceSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema.optional(),
  spec: z.object({ finalizers: z.array(z.string()).nullable().optional() }).optional(),
  status: z
    .object({
      phase: z.string().optional(),
      conditions: z.array(namespaceConditionSchema).nullable().optional(),
    })
    .optional(),
});
export type Namespace = z.infer<typeof namespaceSchema>;

export const namespaceListSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: listMetaSchema.optional(),
  items: z.array(namespaceSchema),
});

/** Kubernetes' validateFinalizerName (core validation): a qualified name, and a standard one when it has no domain. */
function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return [...isQualifiedName(name).map((msg) => fieldError.invalid(path, name, msg)), ...validateKubeFinalizerName(name, path)];
}

/** Kubernetes' ValidateNamespace: metadata (a DNS label name, no namespace) and the spec's finalizer names. */
export function validateNamespace(ns: Namespace): FieldError[] {
  const errs = validateObjectMeta(ns.metadata, { namespaced: false, nameFn: nameIsDNSLabel });
  const path = FieldPath.root('spec', 'finalizers');
  for (const f of ns.spec?.finalizers ?? []) errs.push(...validateFinalizerName(f, path));
  return errs;
}

/** Kubernetes' ValidateNamespaceUpdate: the metadata update rules (spec and status are carried over by the strategy). */
export function validateNamespaceUpdate(ns: Namespace, old: Namespace): FieldError[] {
  return validateObjectMetaUpdate(ns.metadata, old.metadata);
}

/**
 * Kubernetes' ValidateNamespaceFinalizeUpdate (pkg/apis/core/validation), the validation of a PUT
 * to `namespaces/<name>/finalize`: the metadata update rules, and each spec finalizer's name,
 * reported at its index (`spec.finalizers[0]`).
 */
export function validateNamespaceFinalizeUpdate(ns: Namespace, old: Namespace): FieldError[] {
  const errs = validateObjectMetaUpdate(ns.metadata, old.metadata);
  const path = FieldPath.root('spec', 'finalizers');
  (ns.spec?.finalizers ?? []).forEach((f, i) => errs.push(...validateFinalizerName(f, path.index(i))));
  return errs;
}
