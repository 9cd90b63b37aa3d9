import { rbacGroup } from '@plat/api-model';
import type { OpenApiKind } from '@plat/server';
import { rbacV1Definitions, rbacV1KubernetesDefinitions } from '../kind-definitions.generated.js';

/** The OpenAPI of an RBAC kind under the plat name, or under Kubernetes' name with Kubernetes' definitions. */
export function openApiOf(kind: string, group: string): OpenApiKind {
  return group === rbacGroup
    ? { definitionName: `io.plat.api.rbac.v1.${kind}`, definitions: rbacV1Definitions }
    : { definitionName: `io.k8s.api.rbac.v1.${kind}`, definitions: rbacV1KubernetesDefinitions };
}
