import { goQuote, type Status, StatusError } from '@plat/api-model';

/**
 * Reads a Status body by hand rather than with api-model's zod schema: clientctl's start-up
 * target (docs/performance.md) cannot afford loading zod, and esbuild keeps the schema module in
 * the chunk every command shares once anything in the bundle uses it. Wrongly typed fields are
 * dropped, as a lenient decoder would.
 */
function asStatus(value: unknown): Status | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.kind !== 'Status' || v.apiVersion !== 'v1') return undefined;
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const int = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) ? x : undefined);
  const d = v.details && typeof v.details === 'object' ? (v.details as Record<string, unknown>) : undefined;
  const status = str(v.status);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: status === 'Success' || status === 'Failure' ? status : undefined,
    message: str(v.message),
    reason: str(v.reason),
    code: int(v.code),
    details: d && {
      name: str(d.name),
      group: str(d.group),
      kind: str(d.kind),
      uid: str(d.uid),
      retryAfterSeconds: int(d.retryAfterSeconds),
      causes: Array.isArray(d.causes)
        ? d.causes
            .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object')
            .map((c) => ({ reason: str(c.reason), message: str(c.message), field: str(c.field) }))
        : undefined,
    },
  };
}

function reasonForCode(code: number): { reason: string; message: string } {
  switch (code) {
    case 400: return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401: return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403: return { reason: 'Forbidden', message: 'the server does not allow access to the requested resource' };
    case 404: return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 405: return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 406: return { reason: 'NotAcceptable', message: 'the server was unable to respond with a content type that the client supports' };
    case 409: return { reason: 'Conflict', message: 'the server reported a conflict' };
    case 410: return { reason: 'Expired', message: 'the server has asked for the client to provide credentials' };
    case 413: return { reason: 'RequestEntityTooLarge', message: 'the server has rejected the request because it is too large' };
    case 415: return { reason: 'UnsupportedMediaType', message: 'the server was unable to respond with a content type that the client supports' };
    case 422: return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 429: return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    case 504: return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    default:
      return code >= 500
        ? { reason: 'InternalError', message: 'an error on the server ("unknown") has prevented the request from succeeding' }
        : { reason: '', message: `the server responded with the status code ${code} but did not return more information` };
  }
}

/** Turns a non-2xx answer into a StatusError: the server's Status when it sent one, else client-go's generic text. */
export function decodeErrorResponse(statusCode: number, text: string, method: string): StatusError {
  try {
    const status = asStatus(JSON.parse(text));
    if (status && status.status !== 'Success') {
      return StatusError.fromStatus({ ...status, code: status.code ?? statusCode });
    }
  } catch {
    // not JSON: fall through to the generic error
  }
  const generic = reasonForCode(statusCode);
  let message = generic.message;
  if (statusCode >= 500 || (!generic.reason && text.trim())) {
    const snippet = text.trim() || 'unknown';
    message = statusCode >= 500 ? `an error on the server (${goQuote(snippet)}) has prevented the request from succeeding` : message;
  }
  if (statusCode === 404 && method !== 'GET') message = 'the server could not find the requested resource';
  return new StatusError({ status: 'Failure', code: statusCode, reason: generic.reason, message });
}

