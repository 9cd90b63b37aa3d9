import { authenticationGroup, authorizationGroup, certificatesGroup, clusterTrustBundleResource, goQuote, type PolicyRule } from '@plat/api-model';
import type { Attributes, AuthorizationResult, Authorizer, SubjectRules, UserInfo } from './interface.js';
import { rulesAllow } from './rbac/rule-matching.js';

/** Kubernetes' node identity: a user in `system:nodes` named `system:node:<nodeName>`. */
export const nodesGroup = 'system:nodes';
export const nodeUsernamePrefix = 'system:node:';

/**
 * Kubernetes' NodeRules restricted to what plat serves, with the brand rule applied to the
 * groups: nodes may create token and access reviews (the kubelet checks its own API callers with
 * them) and read ClusterTrustBundles (kubelet's clusterTrustBundle projection; every
 * authenticated user may already read them here). The rest of Kubernetes' node rules and its
 * graph-based checks (pods, secrets, configmaps, volumes, leases, CSINodes, service account
 * tokens) are about resources plat does not serve.
 */
export const nodeRules: readonly PolicyRule[] = [
  { verbs: ['create'], apiGroups: [authenticationGroup], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: [authorizationGroup], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'] },
  { verbs: ['get', 'list', 'watch'], apiGroups: [certificatesGroup], resources: [clusterTrustBundleResource] },
];

/** Kubernetes' NodeIdentity: the node name, '' for a node user without one; undefined for anyone else. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(nodeUsernamePrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return user.username.slice(nodeUsernamePrefix.length);
}

/**
 * The `Node` authorizer type (Kubernetes' NodeAuthorizer, plugin/pkg/auth/authorizer/node): no
 * opinion on requests of anyone but nodes; for a node user without a node name, no opinion with
 * `unknown node for user "..."`; for nodes, Allow when {@link nodeRules} cover the request and no
 * opinion otherwise. It never denies.
 */
export function createNodeAuthorizer(rules: readonly PolicyRule[] = nodeRules): Authorizer {
  const decide = (attrs: Attributes): AuthorizationResult => {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return { decision: 'NoOpinion', reason: '' };
    if (node === '') return { decision: 'NoOpinion', reason: `unknown node for user ${goQuote(attrs.user.username)}` };
    return rulesAllow(attrs, rules) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  };
  return {
    authorize: async (attrs) => decide(attrs),
    authorizeKnown: decide,
    // Kubernetes' NodeAuthorizer.RulesFor: a node's permissions are not enumerated.
    rulesFor: (user): SubjectRules =>
      nodeIdentity(user) === undefined
        ? { resourceRules: [], nonResourceRules: [], incomplete: false }
        : { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' },
  };
}
