import { clusterRoleBindingResource, clusterRoleResource, rbacGroup, roleBindingResource, roleResource, type ApiObject, type ClusterRole, type RoleBinding } from '@plat/api-model';
import type { RbacKind, RbacPolicyStore } from '@plat/auth';
import { Reflector, collectionPrefix, type Storage } from '@plat/storage';
import type { ControllerLogger } from './controller-logger.js';

const kinds: ReadonlyArray<[RbacKind, string]> = [
  ['ClusterRole', clusterRoleResource],
  ['ClusterRoleBinding', clusterRoleBindingResource],
  ['Role', roleResource],
  ['RoleBinding', roleBindingResource],
];

type RbacObject = ClusterRole | RoleBinding;

/**
 * Keeps an RbacPolicyStore (what the RBAC authorizer and the escalation checks read) current
 * from watches of the four RBAC resources in storage, as Kubernetes' RBAC authorizer reads them
 * from informers. `synced` resolves once all four were listed.
 */
export class RbacPolicyFeed {
  private readonly reflectors: Reflector[];
  readonly synced: Promise<void>;

  constructor(storage: Storage, store: RbacPolicyStore, opts: { logger?: ControllerLogger } = {}) {
    this.reflectors = kinds.map(
      ([kind, resource]) =>
        new Reflector(
          storage,
          collectionPrefix(rbacGroup, resource),
          {
            replace: (items: readonly ApiObject[]) => store.replace(kind, items as RbacObject[]),
            upsert: (obj: ApiObject) => store.upsert(kind, obj as RbacObject),
            delete: (obj: ApiObject) => store.delete(kind, obj as RbacObject),
          },
          opts,
        ),
    );
    this.synced = Promise.all(this.reflectors.map((r) => r.synced)).then(() => undefined);
  }

  start(): this {
    for (const r of this.reflectors) r.start();
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.stop()));
  }
}
