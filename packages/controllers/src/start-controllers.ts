import type { RbacPolicyStore } from '@plat/auth';
import type { LoopbackClient } from '@plat/server';
import type { Storage } from '@plat/storage';
import { ensureSystemNamespaces, reconcileBootstrapPolicy } from './bootstrap-policy.js';
import { ClusterRoleAggregationController } from './clusterrole-aggregation-controller.js';
import type { ControllerLogger } from './controller-logger.js';
import { CustomResourceDefinitionController, type CustomResourceDefinitionControllerOptions } from './crd-controller.js';
import { NamespaceController, type NamespacedResource } from './namespace-controller.js';
import { RbacPolicyFeed } from './rbac-policy-feed.js';

/** A served resource as the controllers need to know it (@plat/server's ResourceDefinition fits). */
export interface ServedResource {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  /** Set when the resource is another name for another group's objects (not stored twice). */
  storageGroup?: string;
}

export interface ControllersOptions {
  /** What the controllers watch (their informers): the server's storage, behind its watch cache. */
  storage: Storage;
  /**
   * What they write through: the server's loopback client (@plat/server's ApiServer.loopback),
   * so that every write is validated, admitted, recorded in managedFields and audited.
   */
  client: LoopbackClient;
  /** The RBAC objects for the authorizer and the escalation checks: kept current from storage. */
  rbacPolicy: RbacPolicyStore;
  /** The resources the server serves; deleting a namespace deletes the namespaced ones in it. */
  resources: readonly ServedResource[];
  /** The resources served from a point in the run on (custom resources), read at each namespace deletion. */
  runtimeResources?: () => readonly ServedResource[];
  logger?: ControllerLogger;
  /** Reconcile the bootstrap policy and create the system namespaces first (default true). */
  bootstrap?: boolean;
  /**
   * Run the CustomResourceDefinition controller (names, Established, deletion of the custom
   * resources), serving each Established CRD's resource through `serve`.
   */
  customResourceDefinitions?: Pick<CustomResourceDefinitionControllerOptions, 'serve'>;
}

export interface Controllers {
  /** Stops the watches and controllers (before storage closes). */
  stop(): Promise<void>;
}

/** The namespaced resources a server stores (each once, whatever names it is served under). */
export function namespacedResources(resources: readonly ServedResource[]): NamespacedResource[] {
  const out = new Map<string, NamespacedResource>();
  for (const r of resources) {
    if (!r.namespaced) continue;
    const group = r.storageGroup ?? r.group;
    out.set(`${group}/${r.resource}`, { group, version: r.version, resource: r.resource });
  }
  return [...out.values()];
}

/**
 * What the apiserver runs inside itself around its storage, in Kubernetes' order: the bootstrap
 * RBAC policy reconciled and the system namespaces created (the rbac/bootstrap-roles and
 * system-namespaces post-start hooks), the RBAC objects listed into `rbacPolicy` (resolves only
 * once they are, so authorization never starts from an empty policy), then the clusterrole
 * aggregation controller (one pass done) and the namespace controller running.
 */
export async function startControllers(opts: ControllersOptions): Promise<Controllers> {
  const { storage, client, logger } = opts;
  if (opts.bootstrap !== false) {
    await reconcileBootstrapPolicy(client, { logger });
    await ensureSystemNamespaces(client, { logger });
  }
  const feed = new RbacPolicyFeed(storage, opts.rbacPolicy, { logger }).start();
  const aggregation = new ClusterRoleAggregationController(storage, client, { logger });
  const fixed = namespacedResources(opts.resources);
  const runtime = opts.runtimeResources;
  const namespaces = new NamespaceController(storage, client, {
    namespacedResources: runtime ? () => [...fixed, ...namespacedResources(runtime())] : fixed,
    logger,
  });
  const crds = opts.customResourceDefinitions ? new CustomResourceDefinitionController(storage, client, { ...opts.customResourceDefinitions, logger }) : undefined;
  const stop = async () => {
    await Promise.all([feed.stop(), aggregation.stop(), namespaces.stop(), crds?.stop()]);
  };
  try {
    await Promise.all([feed.synced, aggregation.start(), namespaces.start(), crds?.start()]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}
