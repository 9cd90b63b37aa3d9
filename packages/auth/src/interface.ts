import type { PeerCertificate } from 'node:tls';

/** The authenticated identity (Kubernetes' user.Info). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const systemMasters = 'system:masters';
export const systemAuthenticated = 'system:authenticated';
export const systemUnauthenticated = 'system:unauthenticated';
export const anonymousUser = 'system:anonymous';
/** Service accounts authenticate as `system:serviceaccount:<namespace>:<name>`. */
export const serviceAccountUsernamePrefix = 'system:serviceaccount:';

/** What an authenticator sees of a request: no framework types, so any server can call it. */
export interface AuthenticationRequest {
  method: string;
  /** The request path without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The TLS client certificate, when the client sent one; `authorized` says whether it chained to the client CA. */
  tls?: { authorized: boolean; peerCertificate?: PeerCertificate };
  signal?: AbortSignal;
}

export interface AuthenticationResult {
  user: UserInfo;
  /** Audiences the credential was valid for (token authenticators). */
  audiences?: string[];
}

/**
 * Answers the user when this authenticator recognises the credential, `null` when the request
 * carries no credential of its kind, and throws an AuthenticationError when a credential of its
 * kind is present but invalid (the request then gets 401).
 */
export interface Authenticator {
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | null>;
}

/** A credential was presented and rejected: the request gets 401 (the authenticator contract). */
export class AuthenticationError extends Error {
  readonly code = 'ERR_AUTHENTICATION';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthenticationError';
  }
}

/**
 * A spec handed to an authenticator or authorizer that it cannot use (a CEL expression that does
 * not compile in its environment); thrown by the constructor, before any request.
 */
export class AuthSpecError extends Error {
  readonly code = 'ERR_AUTH_SPEC';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthSpecError';
  }
}

/** Request attributes that authorizers decide on (Kubernetes' authorizer.Attributes). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  /** True for /api and /apis resource requests; false for other paths (then `path` applies). */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
}

/** A resource rule of a SelfSubjectRulesReview status (`authorization.plat.io/v1` ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A non-resource rule of a SelfSubjectRulesReview status (NonResourceRule). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What an authorizer knows of a user's permissions in a namespace (Kubernetes' RuleResolver.RulesFor). */
export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the list may miss permissions this authorizer would grant (a webhook's, say). */
  incomplete: boolean;
  /** Why some rules could not be listed (roles that bindings reference but do not exist, authorizers that cannot list). */
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attrs: Attributes, opts?: { signal?: AbortSignal }): Promise<AuthorizationResult>;
  /**
   * Kubernetes' RuleResolver: the rules this authorizer grants the user in a namespace, for
   * SelfSubjectRulesReview (`kubectl auth can-i --list`). An authorizer without it counts as one
   * that cannot list its rules (incomplete). Wrappers of an authorizer pass it on.
   */
  rulesFor?(user: UserInfo, namespace: string): SubjectRules;
}

/** The rules a wrapped authorizer lists, for wrappers that forward `rulesFor` (undefined when it has none). */
export function forwardRulesFor(inner: Authorizer): Authorizer['rulesFor'] {
  return inner.rulesFor ? (user, namespace) => inner.rulesFor!(user, namespace) : undefined;
}
