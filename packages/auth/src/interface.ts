import type { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';

/**
 * The authenticated identity (Kubernetes' user.Info). Treat it as read-only: an authenticator
 * may answer one deep-frozen user to every request of a client (the x509 authenticator does),
 * so a change would throw; make a new one instead (impersonation does).
 */
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
  /**
   * The TLS client certificate, when the client sent one; `authorized` says whether it chained to
   * the client CA. `peerX509Certificate` is the leaf as node:crypto holds it, the certificates the
   * client sent after it as its `issuerCertificate` chain, in the order sent (a server reads it
   * with TLSSocket.getPeerX509Certificate()); authenticators prefer it to `peerCertificate` (the
   * legacy object, whose `issuerCertificate` chain, when there is one, is followed instead).
   */
  tls?: { authorized: boolean; peerCertificate?: PeerCertificate; peerX509Certificate?: X509Certificate };
  /** Aborted when the request ends (the same as the scope's, for callers that pass no scope). */
  signal?: AbortSignal;
}

/**
 * The request an authenticator or authorizer call is made for (what Go's context.Context carries
 * for kube-apiserver's calls). An API server passes its own request context, which has these
 * fields and more; a caller outside a server passes `{ signal }` or nothing. Every field is
 * optional, so that `{ signal }` is a scope; wrappers read and write the ones they document.
 */
export interface RequestScope {
  /** Aborted when the request ends. A server may make it on first read: read it only to use it. */
  readonly signal?: AbortSignal;
  /** When the request times out (ms since the epoch); none for watches. */
  readonly deadline?: number;
  /** The user the request runs as, once authenticated. */
  readonly user?: UserInfo;
  /**
   * The trace context (an OpenTelemetry Context) of the request's current span: tracing wrappers
   * open their spans under it and set it while a child span is open.
   */
  traceContext?: unknown;
  /**
   * The authorizer this request keeps for all its checks: set by an authenticator whose
   * authorizer can be replaced while requests run (a reloadable configuration), and read by the
   * authorizer that set it; other authorizers ignore it.
   */
  pinnedAuthorizer?: Authorizer;
  /** Warnings for the client (sent as `Warning: 299` headers). */
  readonly warnings?: string[];
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
  authenticate(req: AuthenticationRequest, scope?: RequestScope): Promise<AuthenticationResult | null>;
  /**
   * The answer `authenticate` would give, when the authenticator has it at hand without waiting
   * (a client certificate chain it verified before); undefined when the caller must await
   * `authenticate`. Never throws: a rejected credential is `authenticate`'s to report. Optional;
   * wrappers forward it. A request answered here spares the server an async call per layer
   * (docs/performance.md, "apiserver").
   */
  authenticateKnown?(req: AuthenticationRequest, scope?: RequestScope): AuthenticationResult | null | undefined;
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
  /** `scope` is the request the check is made for (its signal, trace context and pinned authorizer). */
  authorize(attrs: Attributes, scope?: RequestScope): Promise<AuthorizationResult>;
  /**
   * The decision `authorize` would give, when the authorizer has it at hand without waiting (RBAC,
   * the built-in rules, the modes); undefined when the caller must await `authorize` (a webhook).
   * A request decided here spares the server an async call per layer (docs/performance.md,
   * "apiserver"). Optional; wrappers forward it.
   */
  authorizeKnown?(attrs: Attributes, scope?: RequestScope): AuthorizationResult | undefined;
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
