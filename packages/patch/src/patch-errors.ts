import { StatusError, StatusReason, newBadRequest } from '@plat/api-model';
import { nestsDeeperThan } from './json-value.js';

/**
 * The Status errors a patch produces. The message is the text the Kubernetes libraries produce
 * (evanphx/json-patch, k8s.io/apimachinery strategicpatch), which is also what
 * `kubectl patch --local` prints after `error: `. The code and reason are what kube-apiserver
 * answers for the same failure (handlers/patch.go).
 */

/** An operation of a JSON patch failed against the document: 422 Invalid. */
export function newJsonPatchApplyError(message: string): StatusError {
  return new StatusError({ code: 422, reason: StatusReason.Invalid, message });
}

/** The patch body itself cannot be decoded: 400 BadRequest. */
export function newPatchDecodeError(message: string): StatusError {
  return newBadRequest(message);
}

/**
 * A strategic merge patch failed. kube-apiserver maps the well-known format errors to 400, lists
 * of lists and a retainKeys mismatch to 422, and answers any other error as a plain 500 whose
 * message is the error text (reason left empty): interpretStrategicMergePatchError.
 */
export function newStrategicMergePatchError(kind: StrategicErrorKind, message: string): StatusError {
  switch (kind) {
    case 'bad-request':
      return newBadRequest(message);
    case 'invalid':
      return new StatusError({ code: 422, reason: StatusReason.Invalid, message });
    default:
      return new StatusError({ code: 500, reason: StatusReason.Unknown, message });
  }
}
export type StrategicErrorKind = 'bad-request' | 'invalid' | 'other';

/**
 * Strategic merge patch asked for a kind without a schema (custom resources, unknown kinds):
 * 415, worded as kubectl words it for `patch --local`.
 */
export function newStrategicMergeNotSupported(apiVersion: string, kind: string): StatusError {
  return new StatusError({
    code: 415,
    reason: StatusReason.UnsupportedMediaType,
    message: `strategic merge patch is not supported for ${gvkString(apiVersion, kind)} locally, try --type merge`,
  });
}

/** Go's schema.GroupVersionKind.String(): `group/version, Kind=Kind` (`/v1, Kind=Pod` for core). */
export function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/** A document or patch nests deeper than the patch functions accept: 400 BadRequest. */
export function newTooDeeplyNested(what: 'document' | 'patch', limit: number): StatusError {
  return newBadRequest(`the ${what} nests deeper than ${limit} levels`);
}

/** Refuses a document or patch that nests deeper than `limit`. */
export function assertNesting(doc: unknown, patch: unknown, limit: number): void {
  if (nestsDeeperThan(patch, limit)) throw newTooDeeplyNested('patch', limit);
  if (nestsDeeperThan(doc, limit)) throw newTooDeeplyNested('document', limit);
}
