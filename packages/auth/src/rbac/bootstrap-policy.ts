import {
  SubjectKind,
  authenticationGroup,
  authorizationGroup,
  certificatesGroup,
  clusterRoleBindingKind,
  clusterRoleKind,
  clusterTrustBundleResource,
  rbacApiVersion,
  rbacGroup,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
} from '@plat/api-model';
import { systemAuthenticated, systemMasters, systemUnauthenticated } from '../interface.js';

/**
 * The policy every server starts with (Kubernetes' bootstrappolicy, the part about what plat
 * serves, with the brand rule): the cluster roles and their cluster role bindings that the
 * apiserver reconciles at every start, adding what is missing and leaving alone what an
 * administrator opted out with `rbac.authorization.plat.io/autoupdate: "false"`.
 */

/** Kubernetes' `rbac.authorization.kubernetes.io/autoupdate`: `"false"` stops the reconciliation of an object. */
export const autoupdateAnnotation = 'rbac.authorization.plat.io/autoupdate';
/** Kubernetes' `kubernetes.io/bootstrapping` label, on every bootstrap object. */
export const bootstrappingLabel = 'plat.io/bootstrapping';
export const bootstrappingLabelValue = 'rbac-defaults';

/** The labels that aggregate a cluster role into `admin`, `edit` and `view` (Kubernetes' `rbac.authorization.k8s.io/aggregate-to-*`). */
export const aggregateToAdminLabel = 'rbac.authorization.plat.io/aggregate-to-admin';
export const aggregateToEditLabel = 'rbac.authorization.plat.io/aggregate-to-edit';
export const aggregateToViewLabel = 'rbac.authorization.plat.io/aggregate-to-view';

/** The group whose members read /metrics and the health checks (Kubernetes' `system:monitoring`). */
export const systemMonitoring = 'system:monitoring';

/** The cluster role (and binding) that lets every authenticated user read ClusterTrustBundles. */
export const clusterTrustBundleReaderRole = 'system:clustertrustbundles-reader';

const read = ['get', 'list', 'watch'];
const readWrite = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

const role = (name: string, rules: PolicyRule[], extra: Partial<ClusterRole> & { labels?: Record<string, string> } = {}): ClusterRole => {
  const { labels, ...rest } = extra;
  return {
    apiVersion: rbacApiVersion,
    kind: clusterRoleKind,
    metadata: {
      name,
      labels: { [bootstrappingLabel]: bootstrappingLabelValue, ...labels },
      annotations: { [autoupdateAnnotation]: 'true' },
    },
    rules,
    ...rest,
  };
};

const aggregatedBy = (label: string) => ({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] } });

/** Kubernetes' bootstrap cluster roles that concern what plat serves, in Kubernetes' order. */
export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    // Anything, anywhere.
    role('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    // Enough to tell whether the server is ready and to discover its APIs.
    role('system:discovery', [
      {
        verbs: ['get'],
        nonResourceURLs: ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'],
      },
    ]),
    role('system:monitoring', [
      { verbs: ['get'], nonResourceURLs: ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'] },
    ]),
    // What a user may learn about itself: whoami, can-i, can-i --list.
    role('system:basic-user', [
      { verbs: ['create'], apiGroups: [authorizationGroup], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: [authenticationGroup], resources: ['selfsubjectreviews'] },
    ]),
    role('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: ['/livez', '/readyz', '/healthz', '/version', '/version/'] }]),
    // The user-facing roles, filled by the clusterrole aggregation controller.
    role('admin', [], aggregatedBy(aggregateToAdminLabel)),
    role('edit', [], { ...aggregatedBy(aggregateToEditLabel), labels: { [aggregateToAdminLabel]: 'true' } }),
    role('view', [], { ...aggregatedBy(aggregateToViewLabel), labels: { [aggregateToEditLabel]: 'true' } }),
    role('system:aggregate-to-admin', [{ verbs: readWrite, apiGroups: [rbacGroup], resources: ['roles', 'rolebindings'] }], {
      labels: { [aggregateToAdminLabel]: 'true' },
    }),
    // Kubernetes' edit may act as the service accounts of its namespace.
    role('system:aggregate-to-edit', [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] }], {
      labels: { [aggregateToEditLabel]: 'true' },
    }),
    role(
      'system:aggregate-to-view',
      [
        { verbs: read, apiGroups: [''], resources: ['namespaces'] },
        { verbs: read, apiGroups: [certificatesGroup], resources: [clusterTrustBundleResource] },
      ],
      { labels: { [aggregateToViewLabel]: 'true' } },
    ),
    // Pods may mount ClusterTrustBundles (the spec, section 1): every authenticated user reads them.
    role(clusterTrustBundleReaderRole, [{ verbs: read, apiGroups: [certificatesGroup], resources: [clusterTrustBundleResource] }]),
  ];
}

const binding = (name: string, groups: string[]): ClusterRoleBinding => ({
  apiVersion: rbacApiVersion,
  kind: clusterRoleBindingKind,
  metadata: {
    name,
    labels: { [bootstrappingLabel]: bootstrappingLabelValue },
    annotations: { [autoupdateAnnotation]: 'true' },
  },
  roleRef: { apiGroup: rbacGroup, kind: clusterRoleKind, name },
  subjects: groups.map((g) => ({ kind: SubjectKind.Group, apiGroup: rbacGroup, name: g })),
});

/** Kubernetes' bootstrap cluster role bindings (each named after its role), and the ClusterTrustBundle readers'. */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding('cluster-admin', [systemMasters]),
    binding('system:monitoring', [systemMonitoring]),
    binding('system:discovery', [systemAuthenticated]),
    binding('system:basic-user', [systemAuthenticated]),
    binding('system:public-info-viewer', [systemAuthenticated, systemUnauthenticated]),
    binding(clusterTrustBundleReaderRole, [systemAuthenticated]),
  ];
}
