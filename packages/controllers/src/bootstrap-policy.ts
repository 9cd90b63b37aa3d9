import {
  NamespacePhase,
  clusterRoleBindingResource,
  clusterRoleResource,
  finalizerKubernetes,
  isStatusError,
  labelMetadataName,
  namespaceKind,
  namespacesResource,
  rbacGroup,
  systemNamespaces,
  type ClusterRole,
  type ClusterRoleBinding,
  type Namespace,
} from '@plat/api-model';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  compactRuleString,
  computeReconciledRole,
  computeReconciledRoleBinding,
} from '@plat/auth';
import { objectKey, type Storage } from '@plat/storage';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';
import { createStored, getStored, updateStored } from './stored-objects.js';

/** The field manager of the apiserver's own bootstrap writes (Kubernetes' `kube-apiserver`, with the brand rule). */
export const apiserverFieldManager = 'plat-apiserver';

export interface BootstrapOptions {
  logger?: ControllerLogger;
}

/** How often one object's reconciliation starts over after losing a race with another writer. */
const attempts = 5;

async function reconcileClusterRole(storage: Storage, expected: ClusterRole, logger: ControllerLogger): Promise<void> {
  const name = expected.metadata?.name ?? '';
  const key = objectKey(rbacGroup, clusterRoleResource, '', name);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const existing = (await getStored(storage, key)) as ClusterRole | undefined;
    const result = computeReconciledRole(existing, expected, false);
    const missing = result.missingRules.map(compactRuleString).join(', ');
    if (result.operation === 'None') return;
    if (result.protected) {
      logger.info(`skipped reconcile-protected clusterrole.${rbacGroup}/${name} with missing permissions: [${missing}]`, {}, 0);
      return;
    }
    if (result.operation === 'Create') {
      if (await createStored(storage, key, result.role, apiserverFieldManager)) {
        logger.info(`created clusterrole.${rbacGroup}/${name}`, {}, 2);
        return;
      }
      continue; // created meanwhile by someone else: reconcile against theirs
    }
    // Reconciled again against the object the update finally applies to.
    await updateStored(storage, key, (current) => computeReconciledRole(current as ClusterRole, expected, false).role, apiserverFieldManager);
    logger.info(`updated clusterrole.${rbacGroup}/${name} with additional permissions: [${missing}]`, {}, 2);
    return;
  }
}

async function reconcileClusterRoleBinding(storage: Storage, expected: ClusterRoleBinding, logger: ControllerLogger): Promise<void> {
  const name = expected.metadata?.name ?? '';
  const key = objectKey(rbacGroup, clusterRoleBindingResource, '', name);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const existing = (await getStored(storage, key)) as ClusterRoleBinding | undefined;
    const result = computeReconciledRoleBinding(existing, expected, false);
    const missing = result.missingSubjects.map((s) => `${s.kind}/${s.name}`).join(', ');
    if (result.operation === 'None') return;
    if (result.protected) {
      logger.info(`skipped reconcile-protected clusterrolebinding.${rbacGroup}/${name} with missing subjects: [${missing}]`, {}, 0);
      return;
    }
    if (result.operation === 'Recreate') {
      // roleRef cannot change: the binding goes and comes back as expected.
      try {
        await storage.delete(key, { preconditions: { uid: existing?.metadata?.uid } });
      } catch (err) {
        if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) throw err;
      }
    }
    if (result.operation === 'Create' || result.operation === 'Recreate') {
      if (await createStored(storage, key, result.binding, apiserverFieldManager)) {
        logger.info(`${result.operation === 'Create' ? 'created' : 'recreated'} clusterrolebinding.${rbacGroup}/${name}`, {}, 2);
        return;
      }
      continue;
    }
    await updateStored(storage, key, (current) => computeReconciledRoleBinding(current as ClusterRoleBinding, expected, false).binding, apiserverFieldManager);
    logger.info(`updated clusterrolebinding.${rbacGroup}/${name} with additional subjects: [${missing}]`, {}, 2);
    return;
  }
}

/**
 * Kubernetes' rbac/bootstrap-roles post-start hook: every bootstrap cluster role and cluster role
 * binding (@plat/auth's bootstrapClusterRoles/Bindings) is created when missing; an existing one
 * gains the rules or subjects it misses and keeps everything else; one annotated
 * `rbac.authorization.plat.io/autoupdate: "false"` is left alone (logged). Run at every start.
 */
export async function reconcileBootstrapPolicy(storage: Storage, opts: BootstrapOptions = {}): Promise<void> {
  const logger = opts.logger ?? silentControllerLogger;
  for (const role of bootstrapClusterRoles()) await reconcileClusterRole(storage, role, logger);
  for (const binding of bootstrapClusterRoleBindings()) await reconcileClusterRoleBinding(storage, binding, logger);
}

/** A new namespace as the Namespace strategy stores it: Active, with the kubernetes finalizer and its name label. */
function newNamespace(name: string): Namespace {
  return {
    apiVersion: 'v1',
    kind: namespaceKind,
    metadata: { name, labels: { [labelMetadataName]: name } },
    spec: { finalizers: [finalizerKubernetes] },
    status: { phase: NamespacePhase.Active },
  };
}

/** Kubernetes' system namespaces controller: `default`, `plat-system` and `plat-public` exist. */
export async function ensureSystemNamespaces(storage: Storage, opts: BootstrapOptions = {}): Promise<void> {
  const logger = opts.logger ?? silentControllerLogger;
  for (const name of systemNamespaces) {
    const key = objectKey('', namespacesResource, '', name);
    if (await getStored(storage, key)) continue;
    if (await createStored(storage, key, newNamespace(name), apiserverFieldManager)) logger.info(`created namespace ${name}`, {}, 2);
  }
}
