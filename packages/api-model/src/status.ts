import { FieldErrorType, aggregateFieldErrors, type FieldError } from './field-error.js';
import { goQuote } from './go-quote.js';

export const StatusReason = {
  Unknown: '',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Invalid: 'Invalid',
  ServerTimeout: 'ServerTimeout',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  InternalError: 'InternalError',
  Expired: 'Expired',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

/** One cause of a failure; Kubernetes' Go field is CauseType `Type`, serialised as `reason`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/**
 * Kubernetes' meta/v1 Status. Plain types here so that raising and printing errors never loads
 * zod (clientctl's start-up path); the wire schema is in status-schema.ts.
 */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; selfLink?: string; remainingItemCount?: number };
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A group and resource (`clustertrustbundles.certificates.plat.io`) or kind, as errors name it. */
export interface GroupResource {
  group: string;
  resource: string;
}
export interface GroupKind {
  group: string;
  kind: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}
function groupKindString(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** An API error carrying a Kubernetes `Status`: what the server answers and the client decodes. */
export class StatusError extends Error {
  readonly status: Status;

  constructor(status: Omit<Status, 'kind' | 'apiVersion' | 'metadata'> & { metadata?: Status['metadata'] }) {
    super(status.message ?? '');
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: status.metadata ?? {},
      status: 'Failure',
      message: status.message,
      reason: status.reason,
      details: status.details,
      code: status.code,
    };
  }

  get code(): number {
    return this.status.code ?? 500;
  }

  get reason(): StatusReason {
    return (this.status.reason ?? '') as StatusReason;
  }

  /** The decoded `Status` of a server answer, or a generic error for a non-Status body. */
  static fromStatus(status: Status): StatusError {
    return new StatusError(status);
  }

  toJSON(): Status {
    return this.status;
  }
}

export function isStatusError(err: unknown, reason?: StatusReason): err is StatusError {
  return err instanceof StatusError && (reason === undefined || err.reason === reason);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 404,
    reason: StatusReason.NotFound,
    message: `${groupResourceString(gr)} ${goQuote(name)} not found`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 409,
    reason: StatusReason.AlreadyExists,
    message: `${groupResourceString(gr)} ${goQuote(name)} already exists`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

export function newConflict(gr: GroupResource, name: string, err: unknown): StatusError {
  return new StatusError({
    code: 409,
    reason: StatusReason.Conflict,
    message: `Operation cannot be fulfilled on ${groupResourceString(gr)} ${goQuote(name)}: ${errorText(err)}`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

/** 409 with one cause per conflicting field (server-side apply). */
export function newApplyConflict(causes: StatusCause[], message: string): StatusError {
  return new StatusError({ code: 409, reason: StatusReason.Conflict, message, details: { causes } });
}

/**
 * Most field errors an Invalid Status carries in its causes and its message. Kubernetes sets no
 * bound; this one keeps a hostile body (say 35,000 broken PEM blocks in one trust bundle) from
 * answering megabytes: the errors past it are counted in one last cause instead.
 */
export const maxStatusCauses = 100;

export function newInvalid(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  const kept = errors.length > maxStatusCauses ? errors.slice(0, maxStatusCauses) : errors;
  const causes: StatusCause[] = kept.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
  const what = `${groupKindString(gk)} ${goQuote(name)} is invalid`;
  let aggregate = errors.length ? aggregateFieldErrors(kept) : '';
  const omitted = errors.length - kept.length;
  if (omitted > 0) {
    const more = `${omitted} more ${omitted === 1 ? 'error' : 'errors'} omitted`;
    causes.push({ reason: FieldErrorType.TooMany, message: more, field: '' });
    aggregate = `[${aggregate.startsWith('[') ? aggregate.slice(1, -1) : aggregate}, ${more}]`;
  }
  const message = aggregate ? `${what}: ${aggregate}` : what;
  return new StatusError({
    code: 422,
    reason: StatusReason.Invalid,
    message,
    details: { name, group: gk.group, kind: gk.kind, causes },
  });
}

export function newBadRequest(message: string): StatusError {
  return new StatusError({ code: 400, reason: StatusReason.BadRequest, message });
}

export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError({ code: 401, reason: StatusReason.Unauthorized, message });
}

export function newForbidden(gr: GroupResource, name: string, err: unknown): StatusError {
  // Kubernetes words a request outside any resource as plain "forbidden: ...".
  let message: string;
  if (!gr.group && !gr.resource) message = `forbidden: ${errorText(err)}`;
  else if (!name) message = `${groupResourceString(gr)} is forbidden: ${errorText(err)}`;
  else message = `${groupResourceString(gr)} ${goQuote(name)} is forbidden: ${errorText(err)}`;
  return new StatusError({
    code: 403,
    reason: StatusReason.Forbidden,
    message,
    details: { name: name || undefined, group: gr.group, kind: gr.resource },
  });
}

/** 403 for a request outside any resource (a path), worded as Kubernetes' authorization filter does. */
export function newForbiddenMessage(message: string): StatusError {
  return new StatusError({ code: 403, reason: StatusReason.Forbidden, message });
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError({
    code: 405,
    reason: StatusReason.MethodNotAllowed,
    message: `${action} is not supported on resources of kind ${goQuote(groupResourceString(gr))}`,
    details: { group: gr.group, kind: gr.resource },
  });
}

export function newGone(message: string): StatusError {
  return new StatusError({ code: 410, reason: StatusReason.Gone, message });
}

export function newResourceExpired(message: string): StatusError {
  return new StatusError({ code: 410, reason: StatusReason.Expired, message });
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 429,
    reason: StatusReason.TooManyRequests,
    message,
    details: { retryAfterSeconds },
  });
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return new StatusError({
    code: 413,
    reason: StatusReason.RequestEntityTooLarge,
    message: `Request entity too large: ${message}`,
  });
}

export function newUnsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 415,
    reason: StatusReason.UnsupportedMediaType,
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    details: contentType ? { causes: [{ message: `unsupported media type ${goQuote(contentType)}` }] } : undefined,
  });
}

export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 406,
    reason: StatusReason.NotAcceptable,
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
  });
}

export function newTimeout(message: string, retryAfterSeconds = 0): StatusError {
  return new StatusError({
    code: 504,
    reason: StatusReason.Timeout,
    message: `Timeout: ${message}`,
    details: retryAfterSeconds ? { retryAfterSeconds } : undefined,
  });
}

export function newInternalError(err: unknown): StatusError {
  const text = errorText(err);
  return new StatusError({
    code: 500,
    reason: StatusReason.InternalError,
    message: `Internal error occurred: ${text}`,
    details: { causes: [{ message: text }] },
  });
}

export function newServiceUnavailable(message: string): StatusError {
  return new StatusError({ code: 503, reason: StatusReason.ServiceUnavailable, message });
}

/** A Status with `status: Success`, as answered by delete and deletecollection. */
export function successStatus(details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
