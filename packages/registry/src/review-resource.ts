import { apiGroupNames, fieldError, type ApiObject, type FieldError } from '@plat/api-model';
import type { CreateOnlyRequest, OpenApiSchema, ProtobufMessage, ResourceDefinition, ResourceStrategy } from '@plat/server';
import {
  authenticationV1Definitions,
  authenticationV1KubernetesDefinitions,
  authorizationV1Definitions,
  authorizationV1KubernetesDefinitions,
} from './kind-definitions.generated.js';

// Both review groups' definitions, as every review resource has carried them.
const reviewDefinitions = { ...authorizationV1Definitions, ...authenticationV1Definitions };
const kubernetesReviewDefinitions = { ...authorizationV1KubernetesDefinitions, ...authenticationV1KubernetesDefinitions };

/** Kubernetes' metadata rule for reviews: nothing may be set. */
export function validateEmptyMetadata(metadata: unknown): FieldError[] {
  if (metadata === undefined || metadata === null) return [];
  const meta = metadata as Record<string, unknown>;
  const set = Object.entries(meta).filter(([k, v]) => v !== undefined && v !== null && !(k === 'creationTimestamp' && v === null));
  return set.length ? [fieldError.invalid('metadata', meta, 'must be empty')] : [];
}

/**
 * What a review stores: nothing. Its strategy holds the one rule every review shares (empty
 * metadata); creates go to `createOnly`, and no other verb is served.
 */
const reviewStrategy: ResourceStrategy = {
  validate: (obj: ApiObject) => validateEmptyMetadata(obj.metadata),
  validateUpdate: (obj: ApiObject) => validateEmptyMetadata(obj.metadata),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  selectableFields: () => ({}),
  selectableFieldNames: [],
  tableColumns: [],
  tableCells: () => [],
};

/**
 * A review API (authentication.k8s.io and authorization.k8s.io, served under the plat groups and
 * under their Kubernetes names, where kubectl's `auth whoami`, `auth can-i` post): create only,
 * nothing stored, Kubernetes' OpenAPI definitions under the Kubernetes names.
 */
export function reviewResource(
  group: string,
  resource: string,
  kind: string,
  protobuf: ProtobufMessage,
  createOnly: (req: CreateOnlyRequest) => Promise<Record<string, unknown>>,
): ResourceDefinition {
  const openApi = (g: string): { definitionName: string; definitions: Record<string, OpenApiSchema> } => {
    const plat = g.endsWith('.plat.io');
    return {
      definitionName: `io.${plat ? 'plat' : 'k8s'}.api.${g.split('.')[0]}.v1.${kind}`,
      definitions: plat ? reviewDefinitions : kubernetesReviewDefinitions,
    };
  };
  return {
    group,
    groups: apiGroupNames(group),
    // Authorized as the plat group under either name, so a 403 and a webhook review name one group.
    authorizedAsOwnGroup: true,
    openApiAs: openApi,
    version: 'v1',
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: false,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    ...openApi(group),
    protobuf,
    createOnly,
    strategy: reviewStrategy,
  };
}
