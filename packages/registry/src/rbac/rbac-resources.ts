import { apiGroupNames, rbacGroup } from '@plat/api-model';
import type { RbacRuleResolver } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { clusterRoleBindingResource } from './clusterrolebinding/cluster-role-binding.js';
import { clusterRoleResource } from './clusterrole/cluster-role.js';
import { roleBindingResource } from './rolebinding/role-binding.js';
import { roleResource } from './role/role.js';

/**
 * The RBAC resources (`rbac.authorization.plat.io/v1`: ClusterRole, ClusterRoleBinding, Role,
 * RoleBinding), as Kubernetes' RBAC registry serves them: validation and v1 defaulting from
 * @plat/api-model, escalation prevention from @plat/auth (the policybased storages' checks, run
 * here as validating admission), Kubernetes' table columns. The same objects are also served
 * under `rbac.authorization.k8s.io/v1`, where kubectl's generators and typed clients post: the
 * group names in bindings' roleRef and subjects are stored as the plat name and read back under
 * the name of the group the client asked.
 */

export interface RbacResourcesOptions {
  /**
   * The rules users hold, for escalation prevention: the resolver of the RBAC authorizer (or of a
   * policy store fed from the same objects). Kubernetes checks escalation with it whether or not
   * RBAC is among the authorization modes.
   */
  resolver: RbacRuleResolver;
  /** Also serve the objects under `rbac.authorization.k8s.io/v1`. Default true. */
  kubernetesGroup?: boolean;
}

/** The four RBAC resources of `rbac.authorization.plat.io/v1`, answering (by default) to `rbac.authorization.k8s.io/v1` too. */
export function rbacResources(opts: RbacResourcesOptions): ResourceDefinition[] {
  const groups = opts.kubernetesGroup === false ? [rbacGroup] : apiGroupNames(rbacGroup);
  return [
    clusterRoleResource(opts.resolver, groups),
    clusterRoleBindingResource(opts.resolver, groups),
    roleResource(opts.resolver, groups),
    roleBindingResource(opts.resolver, groups),
  ];
}
