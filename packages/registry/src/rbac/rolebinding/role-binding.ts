import { roleBindingKind, roleBindingResource as resourceName, rbacGroup, rbacVersion, validateRoleBinding, validateRoleBindingUpdate, type RoleBinding } from '@plat/api-model';
import type { RbacRuleResolver } from '@plat/auth';
import type { ResourceDefinition } from '@plat/server';
import { openApiOf } from '../rbac-openapi.js';
import { rbacV1RoleBindingMessage } from '../../kind-protobuf.generated.js';
import { bindingStrategy } from '../rbac-strategy.js';

/** RoleBinding (`rbac.authorization.plat.io/v1`), answering to each of `groups`. */
export function roleBindingResource(resolver: RbacRuleResolver, groups: readonly string[]): ResourceDefinition {
  return {
    group: rbacGroup,
    groups,
    openApiAs: (group) => openApiOf(roleBindingKind, group),
    version: rbacVersion,
    resource: resourceName,
    singular: roleBindingKind.toLowerCase(),
    kind: roleBindingKind,
    listKind: `${roleBindingKind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    ...openApiOf(roleBindingKind, rbacGroup),
    protobuf: rbacV1RoleBindingMessage,
    strategy: bindingStrategy(resolver, 'roleBinding', {
      validate: (obj) => validateRoleBinding(obj as RoleBinding),
      validateUpdate: (obj, old) => validateRoleBindingUpdate(obj as RoleBinding, old as RoleBinding),
    }),
  };
}
