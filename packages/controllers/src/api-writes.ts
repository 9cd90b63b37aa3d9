import { isStatusError, type ApiObject } from '@plat/api-model';
import type { LoopbackClient } from '@plat/server';

/**
 * The controllers' writes, through the server's loopback client: each one is validated,
 * admitted, defaulted and recorded in managedFields by the REST handlers, as a client's would be
 * (the field manager comes from the client's user agent: `plat-apiserver`, Kubernetes'
 * `kube-apiserver`, unless a controller names its own).
 */

/** How often a read-modify-write starts over after a Conflict (client-go's retry.DefaultRetry: 5 steps). */
const conflictAttempts = 5;

/** The object at `path`, or undefined when there is none. */
export async function getObject(client: LoopbackClient, path: string): Promise<ApiObject | undefined> {
  try {
    return await client.get(path);
  } catch (err) {
    if (isStatusError(err, 'NotFound')) return undefined;
    throw err;
  }
}

/** Creates `obj` in the collection at `collectionPath`; undefined when it exists already (someone else was first). */
export async function createObject(client: LoopbackClient, collectionPath: string, obj: ApiObject): Promise<ApiObject | undefined> {
  try {
    return await client.create(collectionPath, obj);
  } catch (err) {
    if (isStatusError(err, 'AlreadyExists')) return undefined;
    throw err;
  }
}

/**
 * Updates the object at `path`: `change` gets a copy of the current object and answers the next
 * one (its resourceVersion kept, so the update is conditional), or undefined to leave it as it is.
 * With `subresource`, the next object is PUT to `<path>/<subresource>` (a Namespace's `finalize`).
 * A Conflict starts over from a fresh read (client-go's retry.RetryOnConflict). Answers the object
 * as it ends up, or undefined when it is gone.
 */
export async function updateObject(
  client: LoopbackClient,
  path: string,
  change: (current: ApiObject) => ApiObject | undefined,
  opts: { subresource?: string } = {},
): Promise<ApiObject | undefined> {
  const target = opts.subresource ? `${path}/${opts.subresource}` : path;
  for (let attempt = 1; ; attempt++) {
    const current = await getObject(client, path);
    if (!current) return undefined;
    const next = change(structuredClone(current));
    if (!next) return current;
    try {
      return await client.update(target, next);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return undefined;
      if (!isStatusError(err, 'Conflict') || attempt >= conflictAttempts) throw err;
    }
  }
}

/** Deletes the object at `path` if its uid is still `uid`; false when it was gone or replaced. */
export async function deleteObject(client: LoopbackClient, path: string, uid: string | undefined): Promise<boolean> {
  try {
    await client.delete(path, uid ? { preconditions: { uid } } : undefined);
    return true;
  } catch (err) {
    if (isStatusError(err, 'NotFound') || isStatusError(err, 'Conflict')) return false;
    throw err;
  }
}

/**
 * Deletes each listed object at `pathOf(obj)`, with its uid as precondition (a new object of the
 * same name is left for the next pass); answers how many are still there: held by finalizers
 * (202: deletionTimestamp set) or replaced meanwhile (409). One already gone (404) counts as
 * deleted.
 */
export async function deleteEach(client: LoopbackClient, items: readonly ApiObject[], pathOf: (obj: ApiObject) => string): Promise<number> {
  let remaining = 0;
  for (const obj of items) {
    const path = pathOf(obj);
    const uid = obj.metadata?.uid;
    const res = await client.request({ method: 'DELETE', path, body: { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) } });
    if (res.status === 202 || res.status === 409) remaining++;
    else if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${path}: ${res.status} ${res.body.toString('utf8')}`);
  }
  return remaining;
}
