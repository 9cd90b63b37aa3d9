export {
  anchorExpiryWarningWindowMs,
  clusterTrustBundleResource,
  clusterTrustBundleStrategy,
  clusterTrustBundleWarnings,
  isAuthorizedForSigner,
  type ClusterTrustBundleResourceOptions,
} from './certificates/clustertrustbundle/cluster-trust-bundle.js';
export {
  clusterTrustBundleMessage,
  clusterTrustBundleOpenApi,
  clusterTrustBundleToStorageVersion,
} from './certificates/clustertrustbundle/cluster-trust-bundle-versions.js';
export {
  ClusterTrustBundleCache,
  maxTrustBundleSummaries,
  trustBundleSummary,
  type TrustBundleSummary,
} from './certificates/clustertrustbundle/cluster-trust-bundle-cache.js';
export {
  ClusterTrustBundleSignerStats,
  clusterTrustBundleMetricNames,
  maxClusterTrustBundleSignerSeries,
  otherSignersLabel,
  startClusterTrustBundleMetrics,
  type ClusterTrustBundleMetrics,
} from './certificates/clustertrustbundle/cluster-trust-bundle-metrics.js';
export { rbacResources, type RbacResourcesOptions } from './rbac/rbac-resources.js';
export { namespaceResource, namespaceStrategy } from './core/namespace/namespace.js';
export { selfSubjectReviewResource } from './authentication/selfsubjectreview/self-subject-review.js';
export { selfSubjectAccessReviewResource } from './authorization/selfsubjectaccessreview/self-subject-access-review.js';
export { selfSubjectRulesReviewResource } from './authorization/selfsubjectrulesreview/self-subject-rules-review.js';
export { subjectAccessReviewResource } from './authorization/subjectaccessreview/subject-access-review.js';
export { reviewResources } from './review-resources.js';
export {
  customResourceDefinitionOpenApi,
  customResourceDefinitionResource,
  customResourceDefinitionStrategy,
  setCondition,
} from './apiextensions/customresourcedefinition/custom-resource-definition.js';
export {
  isConditionTrue,
  storageVersionOf,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionNames,
  type CustomResourceDefinitionVersion,
  type JsonSchemaProps,
} from './apiextensions/customresourcedefinition/crd-types.js';
export { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './apiextensions/customresourcedefinition/crd-validation.js';
export { compareKubeAwareVersions, customResourceDefinitionName, customResourceDefinitions } from './apiextensions/customresource/custom-resource.js';
