import { roleKind, roleResource as resourceName, rbacGroup, rbacVersion, validateRole, validateRoleUpdate, type Role } from '@plat/api-model';
import type { RbacRuleResolver } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { openApiOf } from '../rbac-openapi.js';
import { rbacV1RoleMessage } from '../../kind-protobuf.generated.js';
import { roleStrategy } from '../rbac-strategy.js';

/** Role (`rbac.authorization.plat.io/v1`), answering to each of `groups`. */
export function roleResource(resolver: RbacRuleResolver, groups: readonly string[]): ResourceDefinition {
  return {
    group: rbacGroup,
    groups,
    openApiAs: (group) => openApiOf(roleKind, group),
    version: rbacVersion,
    resource: resourceName,
    singular: roleKind.toLowerCase(),
    kind: roleKind,
    listKind: `${roleKind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    ...openApiOf(roleKind, rbacGroup),
    protobuf: rbacV1RoleMessage,
    strategy: roleStrategy(resolver, {
      validate: (obj) => validateRole(obj as Role),
      validateUpdate: (obj, old) => validateRoleUpdate(obj as Role, old as Role),
    }),
  };
}
