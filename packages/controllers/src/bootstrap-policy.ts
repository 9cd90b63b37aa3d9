import {
  clusterRoleBindingResource,
  clusterRoleResource,
  namespaceKind,
  namespacesResource,
  rbacApiVersion,
  rbacGroup,
  systemNamespaces,
  type ClusterRole,
  type ClusterRoleBinding,
} from '@plat/api-model';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  compactRuleString,
  computeReconciledRole,
  computeReconciledRoleBinding,
} from '@plat/auth';
import type { LoopbackClient } from '@plat/server';
import { createObject, deleteObject, getObject, updateObject } from './api-writes.js';
import { silentControllerLogger, type ControllerLogger } from './controller-logger.js';

/**
 * The field manager of the apiserver's own writes: the loopback client's user agent up to its
 * first `/`, as Kubernetes' bootstrap objects are managed by `kube-apiserver` (its loopback
 * client's DefaultKubernetesUserAgent; k8s.io/apiserver handlers/rest.go managerOrUserAgent),
 * with the brand rule.
 */
export const apiserverFieldManager = 'plat-apiserver';

const clusterRolesPath = `/apis/${rbacApiVersion}/${clusterRoleResource}`;
const clusterRoleBindingsPath = `/apis/${rbacApiVersion}/${clusterRoleBindingResource}`;
const namespacesPath = `/api/v1/${namespacesResource}`;

export interface BootstrapOptions {
  logger?: ControllerLogger;
}

/** How often one object's reconciliation starts over after losing a race with another writer. */
const attempts = 5;

async function reconcileClusterRole(client: LoopbackClient, expected: ClusterRole, logger: ControllerLogger): Promise<void> {
  const name = expected.metadata?.name ?? '';
  const path = `${clusterRolesPath}/${encodeURIComponent(name)}`;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const existing = (await getObject(client, path)) as ClusterRole | undefined;
    const result = computeReconciledRole(existing, expected, false);
    const missing = result.missingRules.map(compactRuleString).join(', ');
    if (result.operation === 'None') return;
    if (result.protected) {
      logger.info(`skipped reconcile-protected clusterrole.${rbacGroup}/${name} with missing permissions: [${missing}]`, {}, 0);
      return;
    }
    if (result.operation === 'Create') {
      if (await createObject(client, clusterRolesPath, result.role)) {
        logger.info(`created clusterrole.${rbacGroup}/${name}`, {}, 2);
        return;
      }
      continue; // created meanwhile by someone else: reconcile against theirs
    }
    // Reconciled again against the object the update finally applies to.
    const updated = await updateObject(client, path, (current) => computeReconciledRole(current as ClusterRole, expected, false).role);
    if (!updated) continue; // deleted meanwhile: create it again
    logger.info(`updated clusterrole.${rbacGroup}/${name} with additional permissions: [${missing}]`, {}, 2);
    return;
  }
}

async function reconcileClusterRoleBinding(client: LoopbackClient, expected: ClusterRoleBinding, logger: ControllerLogger): Promise<void> {
  const name = expected.metadata?.name ?? '';
  const path = `${clusterRoleBindingsPath}/${encodeURIComponent(name)}`;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const existing = (await getObject(client, path)) as ClusterRoleBinding | undefined;
    const result = computeReconciledRoleBinding(existing, expected, false);
    const missing = result.missingSubjects.map((s) => `${s.kind}/${s.name}`).join(', ');
    if (result.operation === 'None') return;
    if (result.protected) {
      logger.info(`skipped reconcile-protected clusterrolebinding.${rbacGroup}/${name} with missing subjects: [${missing}]`, {}, 0);
      return;
    }
    if (result.operation === 'Recreate') {
      // roleRef cannot change: the binding goes and comes back as expected.
      await deleteObject(client, path, existing?.metadata?.uid);
    }
    if (result.operation === 'Create' || result.operation === 'Recreate') {
      if (await createObject(client, clusterRoleBindingsPath, result.binding)) {
        logger.info(`${result.operation === 'Create' ? 'created' : 'recreated'} clusterrolebinding.${rbacGroup}/${name}`, {}, 2);
        return;
      }
      continue;
    }
    const updated = await updateObject(client, path, (current) => computeReconciledRoleBinding(current as ClusterRoleBinding, expected, false).binding);
    if (!updated) continue;
    logger.info(`updated clusterrolebinding.${rbacGroup}/${name} with additional subjects: [${missing}]`, {}, 2);
    return;
  }
}

/**
 * Kubernetes' rbac/bootstrap-roles post-start hook: every bootstrap cluster role and cluster role
 * binding (@plat/auth's bootstrapClusterRoles/Bindings) is created when missing; an existing one
 * gains the rules or subjects it misses and keeps everything else; one annotated
 * `rbac.authorization.plat.io/autoupdate: "false"` is left alone (logged). Run at every start,
 * through the server's loopback client as Kubernetes' hook does (pkg/registry/rbac/rest
 * storage_rbac.go PostStartHook, with the hook context's LoopbackClientConfig).
 */
export async function reconcileBootstrapPolicy(client: LoopbackClient, opts: BootstrapOptions = {}): Promise<void> {
  const logger = opts.logger ?? silentControllerLogger;
  for (const role of bootstrapClusterRoles()) await reconcileClusterRole(client, role, logger);
  for (const binding of bootstrapClusterRoleBindings()) await reconcileClusterRoleBinding(client, binding, logger);
}

/**
 * Kubernetes' system namespaces controller: `default`, `plat-system` and `plat-public` exist.
 * The Namespace strategy makes them Active with the `kubernetes` finalizer and the name label.
 */
export async function ensureSystemNamespaces(client: LoopbackClient, opts: BootstrapOptions = {}): Promise<void> {
  const logger = opts.logger ?? silentControllerLogger;
  for (const name of systemNamespaces) {
    if (await getObject(client, `${namespacesPath}/${encodeURIComponent(name)}`)) continue;
    if (await createObject(client, namespacesPath, { apiVersion: 'v1', kind: namespaceKind, metadata: { name } })) logger.info(`created namespace ${name}`, {}, 2);
  }
}
