import {
  StatusError,
  newAlreadyExists,
  newConflict,
  newNotFound,
  newResourceExpired,
  newServiceUnavailable,
  newTimeout,
} from '@plat/api-model';
import type { Preconditions, StoredObject } from './interface.js';
import { keyInfo } from './storage-key.js';

/**
 * The errors the store answers, worded as k8s.io/apiserver's storage and registry layers word
 * them (storage/errors.go, storage/etcd3/store.go, registry/generic/registry/store.go).
 */

export function notFound(key: string): StatusError {
  const { groupResource, name } = keyInfo(key);
  return newNotFound(groupResource, name);
}

export function alreadyExists(key: string): StatusError {
  const { groupResource, name } = keyInfo(key);
  return newAlreadyExists(groupResource, name);
}

/** The text of registry's optimistic-lock conflict, for callers comparing resourceVersions themselves. */
export const optimisticLockErrorMsg =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 409 Conflict for a stale resourceVersion on update (the registry's wording). */
export function optimisticLockConflict(key: string): StatusError {
  const { groupResource, name } = keyInfo(key);
  return newConflict(groupResource, name, new Error(optimisticLockErrorMsg));
}

/**
 * 409 Conflict when a precondition does not hold. Kubernetes wraps the storage layer's
 * "invalid object" StorageError, so the message names the key and the failed precondition.
 */
export function checkPreconditions(key: string, pre: Preconditions | undefined, current: StoredObject): void {
  if (!pre) return;
  const meta = current.metadata ?? {};
  let detail: string | undefined;
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    detail = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`;
  } else if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    detail =
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ` +
      `ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`;
  }
  if (detail === undefined) return;
  const { groupResource, name } = keyInfo(key);
  throw newConflict(
    groupResource,
    name,
    new Error(`StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`),
  );
}

/** 410 Expired for a watch or read below the compaction point. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return newResourceExpired(`too old resource version: ${requested} (${oldest})`);
}

/** 410 Expired for a list at an exact revision that has been compacted. */
export function listRevisionCompacted(): StatusError {
  return newResourceExpired('The resourceVersion for the provided list is too old.');
}

/**
 * 410 Expired for a continue token whose snapshot has been compacted; carries a fresh token that
 * continues from the same key at the latest revision, as Kubernetes does.
 */
export function continueExpired(freshToken: string, remainingItemCount?: number): StatusError {
  const err = newResourceExpired(
    'The provided continue parameter is too old to display a consistent list result. ' +
      'You can start a new list without the continue parameter, or use the continue token in this response ' +
      'to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent ' +
      'list - objects that were created, modified, or deleted between the time the first chunk was returned ' +
      'and now may show up in the list.',
  );
  err.status.metadata = { continue: freshToken, ...(remainingItemCount !== undefined ? { remainingItemCount } : {}) };
  return err;
}

/** 504 Timeout when a read asks for a revision the store has not reached (retry after 1 s). */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  const err = newTimeout(`Too large resource version: ${requested}, current: ${current}`, 1);
  err.status.details = {
    ...err.status.details,
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  };
  return err;
}

/** 503 when the backend cannot be reached. */
export function backendUnavailable(backend: string, err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return newServiceUnavailable(`storage backend ${backend} is unavailable: ${text}`);
}

/**
 * 500 for a write whose answer from the backend was lost: it may or may not have been applied.
 * kube-apiserver answers an etcd failure on a write with the client's error as 500 InternalError
 * ("etcdserver: request timed out"); the message says the outcome is unknown and how to learn it.
 */
export function writeOutcomeUnknown(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `Internal error occurred: the outcome of the write is unknown (the storage backend did not answer: ${text}); read the object to learn whether it was applied`,
    details: { causes: [{ message: `the outcome of the write is unknown: ${text}` }] },
  });
}

/** 500 for a write Kubernetes refuses before it reaches storage. */
export function resourceVersionSetOnCreate(): StatusError {
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: 'resourceVersion should not be set on objects to be created',
  });
}

/** The ERROR event a watcher receives when it falls too far behind and is closed. */
export function watcherTooSlow(queued: number, bytes: number): StatusError {
  return new StatusError({
    code: 410,
    reason: 'Expired',
    message: `watch closed: the client fell behind by ${queued} events (${bytes} bytes); restart the watch from the last resourceVersion received`,
  });
}
