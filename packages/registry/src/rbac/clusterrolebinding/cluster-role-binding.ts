import { clusterRoleBindingKind, clusterRoleBindingResource as resourceName, rbacGroup, rbacVersion, validateClusterRoleBinding, validateClusterRoleBindingUpdate, type RoleBinding } from '@plat/api-model';
import type { RbacRuleResolver } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { openApiOf } from '../rbac-openapi.js';
import { rbacV1ClusterRoleBindingMessage } from '../../kind-protobuf.generated.js';
import { bindingStrategy } from '../rbac-strategy.js';

/** ClusterRoleBinding (`rbac.authorization.plat.io/v1`), answering to each of `groups`. */
export function clusterRoleBindingResource(resolver: RbacRuleResolver, groups: readonly string[]): ResourceDefinition {
  return {
    group: rbacGroup,
    groups,
    openApiAs: (group) => openApiOf(clusterRoleBindingKind, group),
    version: rbacVersion,
    resource: resourceName,
    singular: clusterRoleBindingKind.toLowerCase(),
    kind: clusterRoleBindingKind,
    listKind: `${clusterRoleBindingKind}List`,
    namespaced: false,
    shortNames: [],
    categories: [],
    ...openApiOf(clusterRoleBindingKind, rbacGroup),
    protobuf: rbacV1ClusterRoleBindingMessage,
    strategy: bindingStrategy(resolver, 'clusterRoleBinding', {
      validate: (obj) => validateClusterRoleBinding(obj as RoleBinding),
      validateUpdate: (obj, old) => validateClusterRoleBindingUpdate(obj as RoleBinding, old as RoleBinding),
    }),
  };
}
