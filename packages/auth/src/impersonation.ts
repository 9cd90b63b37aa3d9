import {
  anonymousUser,
  serviceAccountUsernamePrefix,
  systemAuthenticated,
  systemUnauthenticated,
  type Attributes,
  type Authorizer,
  type UserInfo,
  type RequestScope,
} from './interface.js';
import { goQuote } from '@plat/api-model';

export const impersonateUserHeader = 'impersonate-user';
export const impersonateGroupHeader = 'impersonate-group';
export const impersonateUidHeader = 'impersonate-uid';
export const impersonateExtraHeaderPrefix = 'impersonate-extra-';
/** The API group of the `uids` and `userextras` impersonation resources. */
export const authenticationGroup = 'authentication.plat.io';

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `system:serviceaccount:<namespace>:<name>` with a valid namespace and name, else undefined. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (namespace.length > 63 || !dns1123Label.test(namespace)) return undefined;
  if (name.length > 253 || !dns1123Subdomain.test(name)) return undefined;
  return { namespace, name };
}

/** Why impersonation was refused: `BadRequest` for malformed headers, `Forbidden` when not allowed. */
export class ImpersonationError extends Error {
  readonly code = 'ERR_IMPERSONATION';
  readonly kind: 'BadRequest' | 'Forbidden';
  /** The attributes that were denied (Forbidden only), to word the 403 as Kubernetes does. */
  readonly attributes?: Attributes;
  readonly reason: string;
  constructor(kind: 'BadRequest' | 'Forbidden', message: string, reason = '', attributes?: Attributes) {
    super(message);
    this.name = 'ImpersonationError';
    this.kind = kind;
    this.reason = reason;
    this.attributes = attributes;
  }
}

type Headers = Record<string, string | string[] | undefined>;

function values(headers: Headers, name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded; // always record the key, even when it is not valid percent-encoding
  }
}

interface ImpersonationRequest {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** Go's %v of an ObjectReference list, as Kubernetes prints it in the "without a user" error. */
function describe(requests: readonly ImpersonationRequest[]): string {
  return `[${requests.map((r) => `{${r.kind} ${r.namespace} ${r.name}  ${r.apiVersion}  ${r.fieldPath}}`).join(' ')}]`;
}

function buildRequests(headers: Headers): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const requestedUser = values(headers, impersonateUserHeader)[0] ?? '';
  if (requestedUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    requests.push(
      sa
        ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' }
        : { kind: 'User', namespace: '', name: requestedUser, apiVersion: '', fieldPath: '' },
    );
  }
  const groups = values(headers, impersonateGroupHeader);
  for (const g of groups) requests.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  let hasExtra = false;
  for (const header of Object.keys(headers).sort()) {
    const lower = header.toLowerCase();
    if (!lower.startsWith(impersonateExtraHeaderPrefix)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(lower.slice(impersonateExtraHeaderPrefix.length));
    for (const value of values(headers, header)) {
      requests.push({ kind: 'UserExtra', namespace: '', name: value, apiVersion: `${authenticationGroup}/v1`, fieldPath: key });
    }
  }
  const uid = values(headers, impersonateUidHeader)[0] ?? '';
  if (uid) requests.push({ kind: 'UID', namespace: '', name: uid, apiVersion: `${authenticationGroup}/v1`, fieldPath: '' });
  if ((groups.length > 0 || hasExtra || uid) && !requestedUser) {
    throw new ImpersonationError('BadRequest', `requested ${describe(requests)} without impersonating a user`);
  }
  return requests;
}

/** True when the request carries any `Impersonate-*` header. */
export function hasImpersonationHeaders(headers: Headers): boolean {
  return Object.keys(headers).some((h) => {
    const lower = h.toLowerCase();
    return (
      lower === impersonateUserHeader ||
      lower === impersonateGroupHeader ||
      lower === impersonateUidHeader ||
      lower.startsWith(impersonateExtraHeaderPrefix)
    );
  });
}

/**
 * Kubernetes' impersonation filter as a function: checks verb `impersonate` for every requested
 * user (`users`, or `serviceaccounts` in its namespace for `system:serviceaccount:<ns>:<name>`),
 * group (`groups`), uid (`uids`) and extra value (`userextras/<key>`), then answers the user to
 * act as, or null when the request impersonates nobody. Headers must keep repeated values apart
 * (Node's `req.headersDistinct`), names lower-cased.
 * Throws ImpersonationError: BadRequest for groups/extra/uid without a user (Kubernetes answers
 * this as an internal error), Forbidden with the denied attributes.
 */
export async function impersonate(
  requestor: UserInfo,
  headers: Headers,
  authorizer: Authorizer,
  scope: RequestScope = {},
): Promise<UserInfo | null> {
  const requests = buildRequests(headers);
  if (requests.length === 0) return null;
  const groupsSpecified = values(headers, impersonateGroupHeader).length > 0;
  let username = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs: Attributes = {
      user: requestor,
      verb: 'impersonate',
      resourceRequest: true,
      apiGroup: r.apiVersion ? authenticationGroup : '',
      apiVersion: r.apiVersion ? 'v1' : '',
      resource: '',
      subresource: '',
      namespace: r.namespace,
      name: r.name,
      path: '',
    };
    switch (r.kind) {
      case 'ServiceAccount':
        attrs.resource = 'serviceaccounts';
        username = `${serviceAccountUsernamePrefix}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        attrs.resource = 'users';
        username = r.name;
        break;
      case 'Group':
        attrs.resource = 'groups';
        groups.push(r.name);
        break;
      case 'UserExtra':
        attrs.resource = 'userextras';
        attrs.subresource = r.fieldPath;
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        attrs.resource = 'uids';
        uid = r.name;
        break;
    }
    let decision;
    try {
      decision = await authorizer.authorize(attrs, scope);
    } catch (err) {
      throw new ImpersonationError('Forbidden', forbiddenText(attrs, (err as Error).message), (err as Error).message, attrs);
    }
    if (decision.decision !== 'Allow') {
      throw new ImpersonationError('Forbidden', forbiddenText(attrs, decision.reason), decision.reason, attrs);
    }
  }
  if (username !== anonymousUser) {
    if (!groups.includes(systemAuthenticated) && !groups.includes(systemUnauthenticated)) groups.push(systemAuthenticated);
  } else if (!groups.includes(systemUnauthenticated)) {
    groups.push(systemUnauthenticated);
  }
  const user: UserInfo = { username, groups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

function forbiddenText(attrs: Attributes, reason: string): string {
  const msg = forbiddenMessage(attrs);
  return reason ? `${msg}: ${reason}` : msg;
}

/** Kubernetes' wording of a denied request (responsewriters.forbiddenMessage). */
export function forbiddenMessage(attrs: Attributes): string {
  const username = JSON.stringify(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${username} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  if (attrs.namespace) {
    return `User ${username} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} in the namespace ${goQuote(attrs.namespace)}`;
  }
  return `User ${username} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} at the cluster scope`;
}
