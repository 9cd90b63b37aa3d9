import * as api from './index.js';

// Other packages import these names: removing or renaming one is a breaking change.
const values = [
  'FieldPath', 'FieldError', 'FieldErrorType', 'fieldError', 'aggregateFieldErrors', 'prefixFieldErrors', 'omitValue', 'rawValue', 'goQuote', 'goQuoteList',
  'parseGoDuration', 'formatGoDuration', 'nanosecondsToMilliseconds', 'millisecondsToNanoseconds', 'humanDuration',
  'StatusError', 'StatusReason', 'statusSchema', 'isStatusError', 'newNotFound', 'newAlreadyExists', 'newConflict', 'newApplyConflict',
  'newInvalid', 'newBadRequest', 'newUnauthorized', 'newForbidden', 'newForbiddenMessage', 'newMethodNotSupported', 'newGone',
  'newResourceExpired', 'newTooManyRequests', 'newRequestEntityTooLarge', 'newUnsupportedMediaType', 'newNotAcceptable', 'newTimeout',
  'newInternalError', 'newServiceUnavailable', 'successStatus', 'groupResourceString',
  'objectMetaSchema', 'listMetaSchema', 'typeMetaSchema', 'ownerReferenceSchema', 'managedFieldsEntrySchema',
  'validateObjectMeta', 'validateObjectMetaName', 'validateObjectMetaUpdate', 'validateImmutableField', 'generateName',
  'isDNS1123Label', 'isDNS1123Subdomain', 'isDNS1035Label', 'isQualifiedName', 'isValidLabelValue', 'nameIsDNSSubdomain',
  'validatePathSegmentName', 'DNS1123LabelMaxLength', 'DNS1123SubdomainMaxLength',
  'LabelSelector', 'parseLabelSelector', 'newLabelRequirement', 'labelSelectorAsSelector', 'FieldSelector', 'parseFieldSelector',
  'escapeFieldSelectorValue', 'unescapeFieldSelectorValue', 'SelectorError',
  'clusterTrustBundleSchema', 'clusterTrustBundleListSchema', 'clusterTrustBundleSpecSchema', 'clusterTrustBundleFields',
  'clusterTrustBundleSelectableFields', 'validateClusterTrustBundle', 'validateClusterTrustBundleUpdate', 'validateSignerName',
  'validateClusterTrustBundleName', 'maxTrustBundleSize',
  'watchEventSchema', 'WatchEventType', 'deleteOptionsSchema', 'validateDeleteOptions', 'DeletionPropagation', 'tableSchema', 'newTable',
  'selfSubjectReviewSchema', 'subjectAccessReviewSchema', 'subjectAccessReviewV1beta1Schema', 'selfSubjectAccessReviewSchema',
  'subjectAccessReviewToV1beta1', 'subjectAccessReviewFromV1beta1',
  'rbacGroup', 'rbacKubernetesGroup', 'clusterRoleSchema', 'clusterRoleBindingSchema', 'roleSchema', 'roleBindingSchema', 'policyRuleSchema',
  'validateClusterRole', 'validateClusterRoleUpdate', 'validateRole', 'validateRoleUpdate', 'validateRoleBinding', 'validateRoleBindingUpdate',
  'validateClusterRoleBinding', 'validateClusterRoleBindingUpdate', 'validateRbacName', 'setRbacBindingDefaults', 'renameRbacApiGroups',
  'kubernetesGroupAliases', 'canonicalApiGroup', 'apiGroupNames', 'aggregateMessages', 'compareGoStrings',
] as const;

describe('package front door', () => {
  it.each(values)('exports %s', (name) => {
    expect((api as Record<string, unknown>)[name]).toBeDefined();
  });

  it('has constants with Kubernetes\' values', () => {
    expect(api.DNS1123LabelMaxLength).toBe(63);
    expect(api.DNS1123SubdomainMaxLength).toBe(253);
    expect(api.maxTrustBundleSize).toBe(1024 * 1024);
    expect(api.clusterTrustBundleApiVersion).toBe('certificates.plat.io/v1alpha1');
    expect(api.maxSignerNameLength).toBe(571);
  });
});
