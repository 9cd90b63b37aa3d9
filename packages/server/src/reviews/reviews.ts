import {
  authenticationGroup,
  authorizationGroup,
  fieldError,
  newBadRequest,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  selfSubjectAccessReviewKind,
  selfSubjectAccessReviewSchema,
  selfSubjectRulesReviewKind,
  selfSubjectRulesReviewSchema,
  selfSubjectReviewKind,
  subjectAccessReviewKind,
  subjectAccessReviewSchema,
  validateSelfSubjectAccessReviewSpec,
  validateSubjectAccessReviewSpec,
  encodeJson,
  type FieldError,
  type SelfSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
} from '@plat/api-model';
import type { Attributes, Authorizer, UserInfo } from '@plat/auth';
import type { RequestContext } from '../context.js';
import { kubernetesReviewDefinitions, reviewDefinitions } from '../openapi/meta-definitions.generated.js';
import type { OpenApiResource } from '../openapi/operations.js';
import { negotiateOutput, type MediaTypeChoice } from '../negotiation.js';
import { contentTypeOf, decodeObjectBody, readBody } from '../request-body.js';
import { newPathNotFound, writeObject } from '../response.js';

/**
 * The review APIs (Kubernetes' authentication.k8s.io and authorization.k8s.io, served under the
 * plat groups and under those two names): create-only, nothing is stored. SelfSubjectReview
 * answers the caller's user; SelfSubjectAccessReview and SubjectAccessReview ask the server's
 * authorizer chain.
 */

/** A served, non-stored resource as discovery lists it. */
export interface ReviewResource {
  group: string;
  version: string;
  resource: string;
  singular: string;
  kind: string;
  namespaced: false;
  shortNames: string[];
  categories: string[];
  verbs: string[];
}

const review = (group: string, resource: string, kind: string): ReviewResource => ({
  group,
  version: 'v1',
  resource,
  singular: kind.toLowerCase(),
  kind,
  namespaced: false,
  shortNames: [],
  categories: [],
  verbs: ['create'],
});

/**
 * kubectl (`auth whoami`, `auth can-i`, `create -f` of a review manifest) and other Kubernetes
 * clients use the Kubernetes group names: each plat review group is also served under its
 * Kubernetes name, as `rbac.authorization.k8s.io` is for the RBAC resources. Those paths are
 * aliases (authorized and answered as the plat resources; the answer's apiVersion echoes the group
 * the client used), and discovery and OpenAPI list both groups, the plat group first so that a
 * bare resource name still resolves to it.
 */
const aliasGroups: Readonly<Record<string, string>> = {
  'authentication.k8s.io': authenticationGroup,
  'authorization.k8s.io': authorizationGroup,
};

const platReviews: readonly ReviewResource[] = [
  review(authenticationGroup, 'selfsubjectreviews', selfSubjectReviewKind),
  review(authorizationGroup, 'selfsubjectaccessreviews', selfSubjectAccessReviewKind),
  review(authorizationGroup, 'selfsubjectrulesreviews', selfSubjectRulesReviewKind),
  review(authorizationGroup, 'subjectaccessreviews', subjectAccessReviewKind),
];

/** The review resources under the plat groups, then the same under the Kubernetes group names. */
export const reviewResources: readonly ReviewResource[] = [
  ...platReviews,
  ...Object.entries(aliasGroups).flatMap(([alias, group]) => platReviews.filter((r) => r.group === group).map((r) => ({ ...r, group: alias }))),
];

/** The review resources as the OpenAPI documents describe them (create only, Kubernetes' definitions). */
export const reviewOpenApiResources: readonly OpenApiResource[] = reviewResources.map((r) => {
  const plat = r.group.endsWith('.plat.io');
  const prefix = `io.${plat ? 'plat' : 'k8s'}.api.${r.group.split('.')[0]}.v1`;
  return { ...r, definitionName: `${prefix}.${r.kind}`, definitions: plat ? reviewDefinitions : kubernetesReviewDefinitions };
});

/**
 * The path a request is routed and authorized by: resource paths of the alias groups mapped to the
 * plat groups (their discovery paths, `/apis/<group>` and `/apis/<group>/<version>`, stay theirs).
 */
export function canonicalReviewPath(pathname: string): string {
  const m = /^\/apis\/(authentication\.k8s\.io|authorization\.k8s\.io)(\/[^/]+\/.+)$/.exec(pathname);
  return m ? `/apis/${aliasGroups[m[1]!]}${m[2]}` : pathname;
}

export function isReviewRequest(ctx: RequestContext): boolean {
  const { info } = ctx;
  return info.isResourceRequest && reviewResources.some((r) => r.group === info.apiGroup && r.version === info.apiVersion && r.resource === info.resource);
}

/** The group the client wrote in the URL (an alias or the plat group). */
function requestedGroup(ctx: RequestContext): string {
  return /^\/apis\/([^/]+)\//.exec(ctx.info.path)?.[1] ?? ctx.info.apiGroup;
}

function userInfoObject(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

/** Kubernetes' authorizer.AttributesRecord of a review spec. */
export function reviewAttributes(user: UserInfo, spec: SelfSubjectAccessReviewSpec): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: n.verb ?? '',
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: n.path ?? '',
  };
}

/** Kubernetes' metadata rule for reviews: nothing may be set. */
function validateEmptyMetadata(metadata: unknown): FieldError[] {
  if (metadata === undefined || metadata === null) return [];
  const meta = metadata as Record<string, unknown>;
  const set = Object.entries(meta).filter(([k, v]) => v !== undefined && v !== null && !(k === 'creationTimestamp' && v === null));
  return set.length ? [fieldError.invalid('metadata', meta, 'must be empty')] : [];
}

async function decodeReview(ctx: RequestContext, maxBodyBytes: number, kind: string): Promise<Record<string, unknown>> {
  const body = await readBody(ctx, maxBodyBytes);
  const contentType = contentTypeOf(ctx) || 'application/json';
  const obj = decodeObjectBody(body, contentType, false, kind).value as Record<string, unknown>;
  ctx.audit?.logRequestObject(obj);
  const group = requestedGroup(ctx);
  if (obj.kind !== undefined && obj.kind !== kind) {
    throw newBadRequest(`the kind of the body ${encodeJson(obj.kind)} does not match the resource: expected ${JSON.stringify(kind)}`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== `${group}/v1`) {
    throw newBadRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${group}/v1)`);
  }
  return obj;
}

async function decide(authorizer: Authorizer, attrs: Attributes, signal: AbortSignal) {
  let result;
  try {
    result = await authorizer.authorize(attrs, { signal });
  } catch (err) {
    throw newInternalError(err);
  }
  const status: Record<string, unknown> = { allowed: result.decision === 'Allow' };
  if (result.decision === 'Deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  return status;
}

/** Serves a POST to one of `reviewResources` (the caller already passed authorization for `create`). */
export async function serveReview(ctx: RequestContext, authorizer: Authorizer, maxBodyBytes: number): Promise<void> {
  const { info } = ctx;
  const group = requestedGroup(ctx);
  const gr = { group: info.apiGroup, resource: info.resource };
  if (info.namespace || info.subresource) throw newPathNotFound();
  if (info.verb !== 'create' || info.name) throw newMethodNotSupported(gr, info.verb);
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
  const user = ctx.user!;

  if (info.resource === 'selfsubjectreviews') {
    const obj = await decodeReview(ctx, maxBodyBytes, selfSubjectReviewKind);
    const errs = validateEmptyMetadata(obj.metadata);
    if (errs.length) throw newInvalid({ group: info.apiGroup, kind: selfSubjectReviewKind }, '', errs);
    writeObject(
      ctx,
      201,
      { kind: selfSubjectReviewKind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, status: { userInfo: userInfoObject(user) } },
      choice,
    );
    return;
  }

  if (info.resource === 'selfsubjectrulesreviews') {
    await serveRulesReview(ctx, authorizer, maxBodyBytes, group, choice);
    return;
  }

  const self = info.resource === 'selfsubjectaccessreviews';
  const kind = self ? selfSubjectAccessReviewKind : subjectAccessReviewKind;
  const obj = await decodeReview(ctx, maxBodyBytes, kind);
  const parsed = (self ? selfSubjectAccessReviewSchema : subjectAccessReviewSchema).safeParse({ ...obj, spec: obj.spec ?? {} });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw newBadRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const spec = parsed.data.spec as SubjectAccessReviewSpec;
  const errs = [...validateEmptyMetadata(obj.metadata), ...(self ? validateSelfSubjectAccessReviewSpec(spec) : validateSubjectAccessReviewSpec(spec))];
  if (errs.length) throw newInvalid({ group: info.apiGroup, kind }, '', errs);

  // A self review asks about the caller as authenticated (after impersonation); a
  // SubjectAccessReview about the subject in its spec.
  const subject: UserInfo = self
    ? user
    : {
        username: spec.user ?? '',
        groups: spec.groups ?? [],
        ...(spec.uid ? { uid: spec.uid } : {}),
        ...(spec.extra ? { extra: spec.extra } : {}),
      };
  const status = await decide(authorizer, reviewAttributes(subject, spec), ctx.signal);
  writeObject(ctx, 201, { kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: obj.spec ?? {}, status }, choice);
}

/**
 * SelfSubjectRulesReview (Kubernetes' selfsubjectrulesreview REST): the rules the authorizer
 * chain lists for the caller in `spec.namespace` (400 `no namespace on request` without one), and
 * whether the list is incomplete (an authorizer that cannot list its rules, such as a webhook).
 */
async function serveRulesReview(ctx: RequestContext, authorizer: Authorizer, maxBodyBytes: number, group: string, choice: MediaTypeChoice): Promise<void> {
  const obj = await decodeReview(ctx, maxBodyBytes, selfSubjectRulesReviewKind);
  const parsed = selfSubjectRulesReviewSchema.safeParse({ ...obj, spec: obj.spec ?? {} });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw newBadRequest(`${selfSubjectRulesReviewKind} in version "v1" cannot be handled as a ${selfSubjectRulesReviewKind}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const errs = validateEmptyMetadata(obj.metadata);
  if (errs.length) throw newInvalid({ group: ctx.info.apiGroup, kind: selfSubjectRulesReviewKind }, '', errs);
  const namespace = parsed.data.spec.namespace ?? '';
  if (namespace === '') throw newBadRequest('no namespace on request');
  const rules = authorizer.rulesFor
    ? authorizer.rulesFor(ctx.user!, namespace)
    : { resourceRules: [], nonResourceRules: [], incomplete: true };
  writeObject(
    ctx,
    201,
    { kind: selfSubjectRulesReviewKind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: obj.spec ?? {}, status: rules },
    choice,
  );
}
