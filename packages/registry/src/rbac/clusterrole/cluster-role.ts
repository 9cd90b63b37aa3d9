import { clusterRoleKind, clusterRoleResource as resourceName, rbacGroup, rbacVersion, validateClusterRole, validateClusterRoleUpdate, type ClusterRole } from '@plat/api-model';
import type { RbacRuleResolver } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { openApiOf } from '../rbac-openapi.js';
import { rbacV1ClusterRoleMessage } from '../../kind-protobuf.generated.js';
import { roleStrategy } from '../rbac-strategy.js';

/** ClusterRole (`rbac.authorization.plat.io/v1`), answering to each of `groups`. */
export function clusterRoleResource(resolver: RbacRuleResolver, groups: readonly string[]): ResourceDefinition {
  return {
    group: rbacGroup,
    groups,
    openApiAs: (group) => openApiOf(clusterRoleKind, group),
    version: rbacVersion,
    resource: resourceName,
    singular: clusterRoleKind.toLowerCase(),
    kind: clusterRoleKind,
    listKind: `${clusterRoleKind}List`,
    namespaced: false,
    shortNames: [],
    categories: [],
    ...openApiOf(clusterRoleKind, rbacGroup),
    protobuf: rbacV1ClusterRoleMessage,
    strategy: roleStrategy(resolver, {
      validate: (obj) => validateClusterRole(obj as ClusterRole),
      validateUpdate: (obj, old) => validateClusterRoleUpdate(obj as ClusterRole, old as ClusterRole),
    }),
  };
}
