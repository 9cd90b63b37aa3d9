import { RbacPolicyStore, RbacRuleResolver } from '@plat/auth';
import { startControllers, type ControllerLogger, type Controllers } from '@plat/controllers';
import {
  ClusterTrustBundleCache,
  clusterTrustBundleResource,
  customResourceDefinitionResource,
  customResourceDefinitions,
  namespaceResource,
  rbacResources,
  reviewResources,
  type CustomResourceDefinition,
} from '@plat/registry';
import { DynamicResources, type LoopbackClient, type ResourceDefinition } from '@plat/server';
import type { Storage } from '@plat/storage';

/** The bootstrap policy or the first list of the RBAC objects failed at start (storage refused them). */
export class BootstrapPolicyError extends Error {
  readonly code = 'ERR_BOOTSTRAP_POLICY';

  constructor(message: string) {
    super(message);
    this.name = 'BootstrapPolicyError';
  }
}

/** What plat-apiserver serves over its storage, and what keeps it consistent. */
export interface ServedResources {
  /** For createApiServer: ClusterTrustBundle, core v1 Namespace, the four RBAC resources (under both RBAC group names) and the review APIs. */
  readonly resources: ResourceDefinition[];
  /** For createApiServer's `dynamicResources`: the custom resources of the Established CustomResourceDefinitions. */
  readonly dynamicResources: DynamicResources;
  /**
   * The rules the stored RBAC objects grant, kept current from storage: the RBAC authorizer's
   * (startIdentity's `rbacResolver`) and the escalation checks' source.
   */
  readonly rbacResolver: RbacRuleResolver;
  /** What the ClusterTrustBundle resource parsed, for startClusterTrustBundleMetrics (this server's own). */
  readonly clusterTrustBundleCache: ClusterTrustBundleCache;
  /**
   * Starts the controllers, writing through `client`, the loopback client of the API server that
   * serves `resources` (createApiServer(...).loopback): the bootstrap policy reconciled and the
   * system namespaces created, then the RBAC objects listed into `rbacResolver`, clusterrole
   * aggregation and namespace deletion running. Resolves once the policy is in place and listed,
   * so the RBAC authorizer never starts from an empty policy: call it before the server listens.
   * Rejects with a BootstrapPolicyError (nothing left running) when the server refuses.
   */
  startControllers(client: LoopbackClient): Promise<void>;
  /** Stops the controllers (after the server closed, before storage closes). */
  stop(): Promise<void>;
}

export interface ServedResourcesOptions {
  logger?: ControllerLogger;
  /** Reconcile the bootstrap RBAC policy and create the system namespaces (default true). */
  bootstrap?: boolean;
}

function resourceDefinitions(cache: ClusterTrustBundleCache, resolver: RbacRuleResolver): ResourceDefinition[] {
  return [clusterTrustBundleResource({ cache }), namespaceResource(), ...rbacResources({ resolver }), customResourceDefinitionResource(), ...reviewResources()];
}

/**
 * The resources plat-apiserver serves, alone (no controllers, caches of their own), for tools that
 * read or rewrite its storage while it is stopped: `apiserver migrate-storage`.
 */
export function servedResourceDefinitions(): ResourceDefinition[] {
  return resourceDefinitions(new ClusterTrustBundleCache(), new RbacRuleResolver(new RbacPolicyStore()));
}

/**
 * The resources of plat-apiserver and the controllers it runs inside itself (Kubernetes' RBAC
 * bootstrap-roles and system-namespaces post-start hooks, the clusterrole aggregation and
 * namespace controllers). In Kubernetes' order: the resources first (identity and the API server
 * are built over them), then `startControllers` with the server's loopback client, so that every
 * write of the controllers goes through the server's REST handlers; then the server listens.
 */
export function createServedResources(storage: Storage, opts: ServedResourcesOptions = {}): ServedResources {
  const rbacPolicy = new RbacPolicyStore();
  const rbacResolver = new RbacRuleResolver(rbacPolicy);
  const clusterTrustBundleCache = new ClusterTrustBundleCache();
  const resources = resourceDefinitions(clusterTrustBundleCache, rbacResolver);
  const dynamicResources = new DynamicResources();
  let controllers: Controllers | undefined;
  return {
    resources,
    dynamicResources,
    rbacResolver,
    clusterTrustBundleCache,
    async startControllers(client) {
      try {
        controllers = await startControllers({
          storage,
          client,
          rbacPolicy,
          resources,
          logger: opts.logger,
          bootstrap: opts.bootstrap,
          // A custom resource is listed in a served version (its storage version may be unserved).
          runtimeResources: () => dynamicResources.all().map((def) => ({ ...def, version: def.servedVersions?.[def.group]?.[0] ?? def.version })),
          customResourceDefinitions: {
            serve: (name, crd) => {
              if (crd) dynamicResources.set(name, customResourceDefinitions(crd as CustomResourceDefinition));
              else dynamicResources.delete(name);
            },
          },
        });
      } catch (err) {
        throw new BootstrapPolicyError(`cannot reconcile the bootstrap RBAC policy: ${(err as Error).message}`);
      }
    },
    stop: async () => {
      await controllers?.stop();
    },
  };
}
