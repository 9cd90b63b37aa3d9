import type { PolicyRule } from '@plat/api-model';
import {
  systemAuthenticated,
  systemMasters,
  systemUnauthenticated,
  type Attributes,
  type AuthorizationResult,
  type Authorizer,
  type NonResourceRule,
  type ResourceRule,
  type SubjectRules,
  type UserInfo,
} from './interface.js';
import { ruleAllows } from './rbac/rule-matching.js';

/** A built-in role bound to groups, like Kubernetes' bootstrap ClusterRoles and bindings. */
export interface BuiltinRole {
  name: string;
  groups: readonly string[];
  rules: readonly PolicyRule[];
}

/**
 * The rules every server has before `--authorization-mode`:
 * - `system:public-info-viewer`: health and version for everybody (Kubernetes binds it to
 *   authenticated and unauthenticated users).
 * - `system:discovery`: discovery and OpenAPI for authenticated users (kubectl needs them).
 * - `system:basic-user`: authenticated users may review themselves (whoami, can-i).
 * - `system:monitoring`: members of `system:monitoring` read /metrics and the health checks.
 * - `clustertrustbundles-reader`: every authenticated user (including all service accounts) may
 *   get, list and watch ClusterTrustBundles, because pods can mount them (the spec, section 1).
 */
export const builtinRoles: readonly BuiltinRole[] = [
  {
    name: 'system:public-info-viewer',
    groups: [systemAuthenticated, systemUnauthenticated],
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }],
  },
  {
    name: 'system:discovery',
    groups: [systemAuthenticated],
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
      },
    ],
  },
  {
    name: 'system:basic-user',
    groups: [systemAuthenticated],
    rules: [
      { verbs: ['create'], apiGroups: ['authentication.plat.io'], resources: ['selfsubjectreviews'] },
      { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    ],
  },
  {
    name: 'system:monitoring',
    groups: ['system:monitoring'],
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'],
      },
    ],
  },
  {
    name: 'system:clustertrustbundles-reader',
    groups: [systemAuthenticated],
    rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['certificates.plat.io'], resources: ['clustertrustbundles'] }],
  },
];

export interface BuiltinAuthorizerOptions {
  /** Groups whose members may do everything; default `system:masters`. */
  privilegedGroups?: readonly string[];
  roles?: readonly BuiltinRole[];
}

/**
 * The first authorizer of the chain: members of `system:masters` may do everything
 * (Kubernetes' privileged-group authorizer), the built-in roles allow what they list, anything
 * else gets no opinion so that `--authorization-mode` decides.
 */
export function createBuiltinAuthorizer(opts: BuiltinAuthorizerOptions = {}): Authorizer {
  const privileged = opts.privilegedGroups ?? [systemMasters];
  const roles = opts.roles ?? builtinRoles;
  return {
    async authorize(attrs: Attributes): Promise<AuthorizationResult> {
      return builtinDecision(attrs, privileged, roles);
    },
    authorizeKnown: (attrs) => builtinDecision(attrs, privileged, roles),
    // The rules of the built-in roles the user's groups hold. The privileged groups' "everything"
    // is not listed, as Kubernetes' privileged-group authorizer lists nothing (RBAC's
    // cluster-admin binding shows it).
    rulesFor(user: UserInfo): SubjectRules {
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      for (const role of roles) {
        if (!role.groups.some((g) => user.groups.includes(g))) continue;
        for (const rule of role.rules) {
          if ((rule.resources ?? []).length) resourceRules.push({ verbs: [...(rule.verbs ?? [])], apiGroups: [...(rule.apiGroups ?? [])], resources: [...(rule.resources ?? [])] });
          if ((rule.nonResourceURLs ?? []).length) nonResourceRules.push({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: [...(rule.nonResourceURLs ?? [])] });
        }
      }
      return { resourceRules, nonResourceRules, incomplete: false };
    },
  };
}

// One answer for every request of a privileged group: no result object per request. A loop, not
// `groups.some(closure)`: the closure made per request cost V8 a `CompileLazy` at its first call
// (0.07 µs of a GET's perf samples, perf-native.mjs --callers; docs/performance.md "apiserver").
const allowPrivileged: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });

function builtinDecision(attrs: Attributes, privileged: readonly string[], roles: readonly BuiltinRole[]): AuthorizationResult {
  const groups = attrs.user.groups;
  for (const g of groups) if (privileged.includes(g)) return allowPrivileged;
  for (const role of roles) {
    const group = role.groups.find((g) => groups.includes(g));
    if (group === undefined) continue;
    if (role.rules.some((rule) => ruleAllows(attrs, rule))) {
      return { decision: 'Allow', reason: `allowed by built-in role ${JSON.stringify(role.name)} to Group ${JSON.stringify(group)}` };
    }
  }
  return { decision: 'NoOpinion', reason: '' };
}
