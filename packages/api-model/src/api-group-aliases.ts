import { apiextensionsGroup, apiextensionsKubernetesGroup } from './custom-resource-definition-names.js';
import { certificatesGroup, certificatesKubernetesGroup } from './cluster-trust-bundle-names.js';
import { rbacGroup, rbacKubernetesGroup } from './rbac.js';
import { authenticationGroup } from './self-subject-review.js';
import { authorizationGroup } from './subject-access-review.js';

/**
 * Kubernetes group names the server also answers to, each backed by a plat group (the brand rule
 * renames the group; kubectl's generators and `auth` commands still post to the Kubernetes name).
 * A request or a policy rule naming either name means the same resources.
 */
export const kubernetesGroupAliases: ReadonlyMap<string, string> = new Map([
  [rbacKubernetesGroup, rbacGroup],
  [certificatesKubernetesGroup, certificatesGroup],
  ['authorization.k8s.io', authorizationGroup],
  ['authentication.k8s.io', authenticationGroup],
  [apiextensionsKubernetesGroup, apiextensionsGroup],
]);

/** The plat group a group name stands for: the alias target, or the name itself. */
export function canonicalApiGroup(group: string): string {
  return kubernetesGroupAliases.get(group) ?? group;
}

/**
 * Every group name a plat group answers to: the group itself first, then the Kubernetes names of
 * the alias table (the registry's resources declare these; RBAC matches rules by the same table).
 */
export function apiGroupNames(group: string): string[] {
  return [group, ...[...kubernetesGroupAliases].filter(([, plat]) => plat === group).map(([k8s]) => k8s)];
}
